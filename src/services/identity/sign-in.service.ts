import { hashPassword, needsRehash, verifyNothing, verifyPassword } from '../../adapters/crypto/password-hash.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../config.js';
import type { AppContext } from '../../context.js';
import { windowOf } from '../../adapters/rate-limit/rate-limit-store.js';
import { AppError, invalidField } from '../../errors.js';
import { describeError } from '../../log-safe.js';
import * as identityRepo from '../../store/repositories/identity.repository.js';
import * as repo from '../../store/repositories/session.repository.js';
import type { Executor } from '../../store/db.js';
import { authenticate, normalizeEmail } from './identity.service.js';
import { audit } from '../audit/audit.service.js';
import { spendBudget } from '../rate-budget.js';
import { createSession } from './session.service.js';
import { PASSWORD_SIGNIN_OFF, passwordSignInAllowed } from './organization-settings.service.js';

/** Sign-in attempts per minute: per account (e-mail) and per client address. */
export const SIGN_IN_LIMITS = { perAccount: 10, perAddress: 30, windowMs: 60_000 } as const;

/** One message for a wrong e-mail, a wrong password and a user without a password. */
export const WRONG_CREDENTIALS = 'wrong e-mail or password';

export interface SignInInput {
  email?: string | undefined;
  password?: string | undefined;
  apiKey?: string | undefined;
}

export function checkPassword(password: string, field = 'password'): void {
  if (password.length < PASSWORD_MIN) throw invalidField(field, `must be at least ${PASSWORD_MIN} characters`);
  if (password.length > PASSWORD_MAX) throw invalidField(field, `must be at most ${PASSWORD_MAX} characters`);
}

export async function setPassword(db: Executor, ctx: AppContext, userId: string, password: string): Promise<void> {
  checkPassword(password);
  const hash = await hashPassword(password);
  await repo.savePasswordHash(db, userId, hash, new Date(ctx.clock.now()).toISOString());
}

/** Counts one attempt against a budget; over it, 429 with Retry-After. Counters are shared through Redis. */
export async function spend(ctx: AppContext, key: string, limit: number): Promise<void> {
  const now = ctx.clock.now();
  const budget = { policy: 'sign-in', limit, windowMs: SIGN_IN_LIMITS.windowMs };
  const seconds = Math.max(1, Math.ceil((windowOf(now, budget.windowMs).resetAt - now) / 1000));
  // Like the request limiter: a counter store that is down must not lock everyone out.
  const refusal = await spendBudget(
    ctx.rateLimits,
    key,
    budget,
    now,
    `too many sign-in attempts: try again in ${seconds} s`,
    (err) => ctx.log.warn({ error: describeError(err) }, 'rate-limit store unavailable; sign-in attempt not counted'),
  );
  if (refusal) throw refusal;
}

async function userIdByPassword(ctx: AppContext, rawEmail: string, password: string, address: string): Promise<string> {
  const email = normalizeEmail(rawEmail);
  await spend(ctx, `signin:account:${email}`, SIGN_IN_LIMITS.perAccount);
  const db = ctx.store.db;
  const user = await identityRepo.findUserByEmail(db, email);
  const stored = user ? await repo.findPasswordHash(db, user.id) : undefined;
  // Without a user or a password the same work is done, so the answer and its time are the same.
  const matches = stored ? await verifyPassword(password, stored) : await verifyNothing(password);
  if (!user || !stored || !matches) {
    // A failed sign-in is recorded in the organization of the account it named (if any).
    if (user) {
      const actor = { orgId: user.organization_id, userId: user.id, keyId: null, address };
      await audit(db, ctx.clock, actor, { operation: 'session.signin.failed', targetType: 'user', targetId: user.id });
    }
    throw new AppError('UNAUTHENTICATED', WRONG_CREDENTIALS);
  }
  // Only the right password hears that its organization uses single sign-on: a wrong one answers
  // as any wrong password does, so the answer tells no one which addresses have an account.
  if (!(await passwordSignInAllowed(ctx, db, user.organization_id))) {
    const actor = { orgId: user.organization_id, userId: user.id, keyId: null, address };
    await audit(db, ctx.clock, actor, { operation: 'session.signin.failed', targetType: 'user', targetId: user.id });
    throw new AppError('FORBIDDEN', PASSWORD_SIGNIN_OFF);
  }
  if (needsRehash(stored)) await setPassword(db, ctx, user.id, password);
  return user.id;
}

/** Checks the credentials and starts a session; answers the cookie token and the user's id. */
export async function signIn(
  ctx: AppContext,
  input: SignInInput,
  address: string,
): Promise<{ token: string; userId: string }> {
  const byKey = input.apiKey !== undefined;
  if (byKey && (input.email !== undefined || input.password !== undefined)) {
    throw invalidField('apiKey', 'send either apiKey, or email and password, not both');
  }
  if (!byKey && !ctx.config.passwordSignIn) throw new AppError('FORBIDDEN', PASSWORD_SIGNIN_OFF);
  if (!byKey) {
    if (input.email === undefined) throw invalidField('email', 'is required (or send apiKey)');
    if (input.password === undefined) throw invalidField('password', 'is required');
  }
  await spend(ctx, `signin:address:${address}`, SIGN_IN_LIMITS.perAddress);
  let userId: string;
  if (byKey) {
    const owner = await authenticate(ctx.store.db, input.apiKey?.trim());
    if (!owner) throw new AppError('UNAUTHENTICATED', 'invalid API key');
    userId = owner.userId;
  } else {
    userId = await userIdByPassword(ctx, input.email ?? '', input.password ?? '', address);
  }
  const { token } = await createSession(ctx, userId, address);
  return { token, userId };
}
