import crypto, { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../adapters/clock.js';
import { type Plan, PLANS } from '../../config.js';
import { AppError, conflict, invalidField, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Db, Executor } from '../../store/db.js';
import { audit, type AuditActor } from '../audit/audit.service.js';
import * as repo from '../../store/repositories/identity.repository.js';
import { isOrgRole, type OrgRole, type Principal } from '../../access.js';
import { type PrincipalCache, principalsChanged } from './principal-cache.js';

const KEY_PREFIX = 'ak_';

/** Node's one-shot digest (20.12 and later): a tenth of createHash's cost on a key this short. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** Every request with a key hashes it (2-3 % of a GET task's CPU through createHash). */
export function hashApiKey(key: string): string {
  if (oneShotHash) return oneShotHash('sha256', key, 'hex');
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(24).toString('base64url');
}

/** Resolves an `apikey` header to its caller; undefined for a missing, unknown or revoked key. */
export async function authenticate(db: Executor, rawKey: string | undefined): Promise<Principal | undefined> {
  if (!rawKey || rawKey.length > 512) return undefined;
  return principalOfKey(db, hashApiKey(rawKey));
}

/** authenticate() through the process's key cache (principal-cache.ts): what requests use. */
export async function authenticateCached(
  db: Executor,
  cache: PrincipalCache,
  rawKey: string | undefined,
): Promise<Principal | undefined> {
  if (!rawKey || rawKey.length > 512) return undefined;
  const hash = hashApiKey(rawKey);
  return cache.resolve(hash, () => principalOfKey(db, hash));
}

async function principalOfKey(db: Executor, hash: string): Promise<Principal | undefined> {
  const row = await repo.findKeyOwner(db, hash);
  // The lookup is by hash, so timing reveals nothing of the key; compare anyway, constant-time.
  if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) {
    return undefined;
  }
  return {
    keyId: row.key_id,
    userId: row.user_id,
    email: row.email,
    orgId: row.organization_id,
    orgRole: isOrgRole(row.org_role) ? row.org_role : 'member',
    plan: row.plan,
    planLimit: row.rate_limit,
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;
export function isEmail(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 320 && EMAIL_RE.test(value.trim());
}

export async function createOrganization(db: Executor, clock: Clock, name: string, plan: Plan) {
  const org = { id: newId(clock.now()), name, plan, rate_limit: null, created_at: iso(clock) };
  await repo.insertOrganization(db, org);
  return org;
}

export async function createUser(
  db: Executor,
  clock: Clock,
  input: { email: string; orgId: string; orgRole: OrgRole; name?: string; joinedByInvite?: boolean },
) {
  const email = normalizeEmail(input.email);
  if (!isEmail(email)) throw invalidField('email', 'must be an e-mail address');
  if (!(await repo.findOrganization(db, input.orgId))) throw notFound('organization');
  if (await repo.findUserByEmail(db, email)) throw conflict(`a user with e-mail ${email} already exists`);
  const user = {
    id: newId(clock.now()),
    email,
    name: input.name ?? email.split('@')[0] ?? email,
    organization_id: input.orgId,
    org_role: input.orgRole,
    created_at: iso(clock),
    joined_by_invite: input.joinedByInvite ? 1 : 0,
  };
  await repo.insertUser(db, user);
  return user;
}

/**
 * Makes a new key for the user, revoking the old one; answers the key, which is never stored.
 * A key a caller asks for (`by`) is recorded in the audit log with it.
 */
export async function issueApiKey(
  db: Db,
  clock: Clock,
  userId: string,
  fixedKey?: string,
  by?: Principal | AuditActor,
): Promise<string> {
  const key = fixedKey ?? generateApiKey();
  const id = newId(clock.now());
  await db.transaction().execute(async (trx) => {
    await repo.replaceApiKey(trx, { id, userId, hash: hashApiKey(key), prefix: key.slice(0, 8), now: iso(clock) });
    if (by) await audit(trx, clock, by, { operation: 'apikey.renew', targetType: 'apikey', targetId: id });
  });
  await principalsChanged(db);
  return key;
}

export async function setOrganizationPlan(db: Executor, orgId: string, plan: string, limit?: number) {
  const known = PLANS.find((p) => p === plan);
  if (!known) throw invalidField('plan', `must be one of ${PLANS.join(', ')}`);
  if (known === 'enterprise' && (!limit || limit < 1)) {
    throw invalidField('limit', 'the enterprise plan needs a positive requests-per-minute number');
  }
  const found = await repo.setOrganizationPlan(db, orgId, known, known === 'enterprise' ? (limit ?? null) : null);
  if (!found) throw notFound('organization');
  await principalsChanged(db);
}

export interface BootstrapResult {
  /** The key to print once; undefined when nothing was created. */
  apiKey: string | undefined;
  email: string;
  orgId: string;
}

export const DEFAULT_BOOTSTRAP_EMAIL = 'admin@annotary.local';

/**
 * First start on an empty store makes an organization, its owner and a key. With
 * ANNOTARY_BOOTSTRAP_API_KEY the key (and e-mail) are fixed, and later starts make sure they
 * still work, so automation can rely on them.
 */
export async function bootstrap(
  db: Db,
  clock: Clock,
  opts: { apiKey?: string | undefined; email?: string | undefined; plan: Plan },
): Promise<BootstrapResult | undefined> {
  const email = normalizeEmail(opts.email ?? DEFAULT_BOOTSTRAP_EMAIL);
  if (opts.apiKey) {
    const existing = await authenticate(db, opts.apiKey);
    if (existing) return undefined;
  } else if ((await repo.countOrganizations(db)) > 0) {
    return undefined;
  }
  try {
    let user = await repo.findUserByEmail(db, email);
    if (!user) {
      user = await db.transaction().execute(async (trx) => {
        const org = await createOrganization(trx, clock, 'Default organization', opts.plan);
        return createUser(trx, clock, { email, orgId: org.id, orgRole: 'owner' });
      });
    }
    const apiKey = await issueApiKey(db, clock, user.id, opts.apiKey);
    return { apiKey: opts.apiKey ? undefined : apiKey, email, orgId: user.organization_id };
  } catch (err) {
    // Two processes starting together on one PostgreSQL: the other one won the race.
    if (err instanceof AppError && err.code === 'CONFLICT') return undefined;
    if (isUniqueViolation(err)) return undefined;
    throw err;
  }
}

export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as Error & { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

function iso(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
