import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import * as identityRepo from '../../store/repositories/identity.repository.js';
import * as repo from '../../store/repositories/session.repository.js';
import { normalizeEmail } from './identity.service.js';
import { createPasswordLink, type PasswordLink } from './password-link.service.js';
import { setPassword } from './sign-in.service.js';

/** An administrator's reset (`annotary users password`): a one-time link, or a password given. */
async function userOf(ctx: AppContext, email: string) {
  const user = await identityRepo.findUserByEmail(ctx.store.db, normalizeEmail(email));
  if (!user) throw notFound(`user with e-mail ${email}`);
  return user;
}

/** A reset link for the user; the password and sessions stay until the link is used. */
export async function resetLink(ctx: AppContext, email: string): Promise<PasswordLink & { email: string }> {
  const user = await userOf(ctx, email);
  const link = await createPasswordLink(ctx.store.db, ctx, {
    purpose: 'reset',
    email: user.email,
    orgId: user.organization_id,
    userId: user.id,
  });
  return { email: user.email, ...link };
}

/** Sets the password now and ends the user's sessions (they sign in again with the new one). */
export async function resetPasswordTo(ctx: AppContext, email: string, password: string): Promise<{ email: string }> {
  const user = await userOf(ctx, email);
  await setPassword(ctx.store.db, ctx, user.id, password);
  await repo.deleteUserSessions(ctx.store.db, user.id);
  return { email: user.email };
}
