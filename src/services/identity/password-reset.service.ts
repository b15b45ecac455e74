import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { audit, cliActor } from '../audit/audit.service.js';
import * as identityRepo from '../../store/repositories/identity.repository.js';
import * as repo from '../../store/repositories/session.repository.js';
import { normalizeEmail } from './identity.service.js';
import { demandPasswordSignIn } from './organization-settings.service.js';
import { createPasswordLink, type PasswordLink } from './password-link.service.js';
import { setPassword } from './sign-in.service.js';

/** An administrator's reset (`annotary users password`): a one-time link, or a password given. */
async function userOf(ctx: AppContext, email: string) {
  const user = await identityRepo.findUserByEmail(ctx.store.db, normalizeEmail(email));
  if (!user) throw notFound(`user with e-mail ${email}`);
  await demandPasswordSignIn(ctx, ctx.store.db, user.organization_id);
  return user;
}

/** A reset link for the user; the password and sessions stay until the link is used. */
export async function resetLink(ctx: AppContext, email: string): Promise<PasswordLink & { email: string }> {
  const user = await userOf(ctx, email);
  const link = await ctx.store.db.transaction().execute(async (trx) => {
    const made = await createPasswordLink(trx, ctx, {
      purpose: 'reset',
      email: user.email,
      orgId: user.organization_id,
      userId: user.id,
    });
    await audit(trx, ctx.clock, cliActor(user.organization_id), {
      operation: 'user.password.link',
      targetType: 'user',
      targetId: user.id,
    });
    return made;
  });
  return { email: user.email, ...link };
}

/** Sets the password now and ends the user's sessions (they sign in again with the new one). */
export async function resetPasswordTo(ctx: AppContext, email: string, password: string): Promise<{ email: string }> {
  const user = await userOf(ctx, email);
  await ctx.store.db.transaction().execute(async (trx) => {
    await setPassword(trx, ctx, user.id, password);
    await repo.deleteUserSessions(trx, user.id);
    await audit(trx, ctx.clock, cliActor(user.organization_id), {
      operation: 'user.password',
      targetType: 'user',
      targetId: user.id,
      fields: ['password'],
    });
  });
  return { email: user.email };
}
