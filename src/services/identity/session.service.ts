import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import * as identityRepo from '../../store/repositories/identity.repository.js';
import * as projectRepo from '../../store/repositories/project.repository.js';
import * as repo from '../../store/repositories/session.repository.js';
import { audit } from '../audit/audit.service.js';
import { isOrgRole, type Principal } from '../../access.js';

/** The console's session cookie; its value is a random token whose SHA-256 the store keeps. */
export const SESSION_COOKIE = 'annotary_session';
/** The header a cookie-authenticated write carries (the token from POST or GET /v2/session). */
export const CSRF_HEADER = 'x-csrf-token';

// A used session's expiry is pushed forward at most once a minute: a page full of requests
// costs one write, not one per request.
const TOUCH_EVERY_MS = 60_000;

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The session's CSRF token: bound to the session (an HMAC of its token hash under the server
 * key), so nothing more is stored and a token of one session is worthless for another.
 */
export function csrfTokenFor(secretKey: Buffer, tokenHash: string): string {
  return createHmac('sha256', secretKey).update('annotary-csrf\u0000').update(tokenHash).digest('base64url');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function idleMs(ctx: AppContext): number {
  return ctx.config.sessionHours * 3_600_000;
}

/**
 * Starts a session for the user, and records the sign-in (from `address`) with it; answers the
 * cookie's token (shown once) and the session's id.
 */
export async function createSession(
  ctx: AppContext,
  userId: string,
  address: string | null,
  operation = 'session.signin',
): Promise<{ token: string; id: string }> {
  const now = ctx.clock.now();
  const token = randomBytes(32).toString('base64url');
  const id = newId(now);
  await repo.deleteExpiredSessions(ctx.store.db, userId, iso(now));
  await ctx.store.db.transaction().execute(async (trx) => {
    const user = await identityRepo.findUserById(trx, userId);
    if (!user) throw notFound('user');
    await repo.insertSession(trx, {
      id,
      user_id: userId,
      token_hash: hashToken(token),
      created_at: iso(now),
      last_seen_at: iso(now),
      expires_at: iso(now + idleMs(ctx)),
    });
    const actor = { orgId: user.organization_id, userId, keyId: `session:${id}`, address };
    await audit(trx, ctx.clock, actor, { operation, targetType: 'user', targetId: userId });
  });
  return { token, id };
}

/** Resolves a session cookie to its caller and slides its expiry; undefined when unknown or ended. */
export async function authenticateSession(ctx: AppContext, token: string | undefined): Promise<Principal | undefined> {
  if (!token || token.length > 256) return undefined;
  const tokenHash = hashToken(token);
  const now = ctx.clock.now();
  const row = await repo.findSessionOwner(ctx.store.db, tokenHash, iso(now));
  if (!row) return undefined;
  let expiresAt = row.expires_at;
  if (now - Date.parse(row.last_seen_at) >= TOUCH_EVERY_MS) {
    expiresAt = iso(now + idleMs(ctx));
    await repo.touchSession(ctx.store.db, row.session_id, iso(now), expiresAt);
  }
  return {
    keyId: `session:${row.session_id}`,
    userId: row.user_id,
    email: row.email,
    orgId: row.organization_id,
    orgRole: isOrgRole(row.org_role) ? row.org_role : 'member',
    plan: row.plan,
    planLimit: row.rate_limit,
    session: { id: row.session_id, csrfToken: csrfTokenFor(ctx.secretKey, tokenHash), expiresAt },
  };
}

export async function endSession(ctx: AppContext, p: Principal): Promise<boolean> {
  const session = p.session;
  if (!session) return false;
  await ctx.store.db.transaction().execute(async (trx) => {
    await repo.deleteSession(trx, session.id);
    await audit(trx, ctx.clock, p, { operation: 'session.signout', targetType: 'user', targetId: p.userId });
  });
  return true;
}

/** Who the caller is, for the console: user, organization, roles, and the session's CSRF token. */
export async function sessionView(ctx: AppContext, p: Principal) {
  const db = ctx.store.db;
  const user = await identityRepo.findUserWithOrganization(db, p.userId);
  const projects = await projectRepo.memberRolesInOrg(db, p.orgId, p.email);
  return {
    user: { _id: user.id, email: user.email, name: user.name },
    organization: { _id: user.org_id, name: user.org_name, plan: user.plan },
    organizationRole: p.orgRole,
    projectRoles: projects.map((m) => ({ projectId: m.project_id, role: m.role })),
    via: p.session ? ('session' as const) : ('apikey' as const),
    ...(p.session ? { csrfToken: p.session.csrfToken, expiresAt: p.session.expiresAt } : {}),
  };
}
