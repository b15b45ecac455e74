import type { Insertable } from 'kysely';
import type { Executor } from '../db.js';
import { preparedQuery } from '../prepared-query.js';
import type { OrganizationRow, OrganizationTable, UserRow, UserTable } from '../schema.js';

/** What one API-key lookup yields: the key's user and organization, in one query. */
export interface KeyOwnerRow {
  key_id: string;
  key_hash: string;
  user_id: string;
  email: string;
  organization_id: string;
  org_role: string;
  plan: string;
  rate_limit: number | null;
}

/** What a request's caller resolves to, whether by API key or by session (users `u`, organizations `o`). */
export const PRINCIPAL_COLUMNS = [
  'u.id as user_id',
  'u.email',
  'u.organization_id',
  'u.org_role',
  'o.plan',
  'o.rate_limit',
] as const;

// Every request with an API key reads this (no cache without Redis): compiled once.
const keyOwner = preparedQuery(['keyHash'], (db, a) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .innerJoin('organizations as o', 'o.id', 'u.organization_id')
    .select(['k.id as key_id', 'k.key_hash', ...PRINCIPAL_COLUMNS])
    .where('k.key_hash', '=', a.keyHash)
    .where('k.revoked_at', 'is', null),
);

export async function findKeyOwner(db: Executor, keyHash: string): Promise<KeyOwnerRow | undefined> {
  const [row] = await keyOwner(db, { keyHash });
  return row;
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findOrganization(db: Executor, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countOrganizations(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertOrganization(db: Executor, row: Insertable<OrganizationTable>): Promise<void> {
  await db.insertInto('organizations').values(row).execute();
}

export async function insertUser(db: Executor, row: Insertable<UserTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function listOrgUsers(db: Executor, orgId: string): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', orgId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Revokes every active key of the user and stores the new one: one active key per user. */
export async function replaceApiKey(
  db: Executor,
  key: { id: string; userId: string; hash: string; prefix: string; now: string },
): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: key.now })
    .where('user_id', '=', key.userId)
    .where('revoked_at', 'is', null)
    .execute();
  await db
    .insertInto('api_keys')
    .values({
      id: key.id,
      user_id: key.userId,
      key_hash: key.hash,
      prefix: key.prefix,
      created_at: key.now,
      revoked_at: null,
    })
    .execute();
}

export async function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setUserOrgRole(db: Executor, userId: string, role: string): Promise<void> {
  await db.updateTable('users').set({ org_role: role }).where('id', '=', userId).execute();
}

/** Turns e-mail and password sign-in on (1) or off (0) for the organization's members. */
export async function setOrganizationPasswordSignIn(db: Executor, orgId: string, on: boolean): Promise<void> {
  await db
    .updateTable('organizations')
    .set({ password_sign_in: on ? 1 : 0 })
    .where('id', '=', orgId)
    .execute();
}

/** Whether any organization lets its members sign in with a password. */
export async function anyOrganizationWithPasswords(db: Executor): Promise<boolean> {
  const row = await db
    .selectFrom('organizations')
    .select('id')
    .where('password_sign_in', '=', 1)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The organization's id when the install has exactly one; undefined otherwise. */
export async function onlyOrganizationId(db: Executor): Promise<string | undefined> {
  const rows = await db.selectFrom('organizations').select('id').limit(2).execute();
  return rows.length === 1 ? rows[0]?.id : undefined;
}

/** Sets the organization's plan and its own rate limit; false when there is no such organization. */
export async function setOrganizationPlan(
  db: Executor,
  orgId: string,
  plan: string,
  rateLimit: number | null,
): Promise<boolean> {
  const res = await db
    .updateTable('organizations')
    .set({ plan, rate_limit: rateLimit })
    .where('id', '=', orgId)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** The user with their organization's name and plan, as the console shows who is signed in. */
export async function findUserWithOrganization(db: Executor, userId: string) {
  return db
    .selectFrom('users as u')
    .innerJoin('organizations as o', 'o.id', 'u.organization_id')
    .select(['u.id', 'u.email', 'u.name', 'o.id as org_id', 'o.name as org_name', 'o.plan'])
    .where('u.id', '=', userId)
    .executeTakeFirstOrThrow();
}

/** Deletes the user's API keys, revoked ones included. */
export async function deleteUserKeys(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('api_keys').where('user_id', '=', userId).execute();
}

export async function deleteUser(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', userId).execute();
}
