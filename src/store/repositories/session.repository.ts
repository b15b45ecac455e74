import type { Executor } from '../db.js';
import type { PasswordLinkRow, SessionRow } from '../schema.js';
import { type KeyOwnerRow, PRINCIPAL_COLUMNS } from './identity.repository.js';

/** A live session and its user and organization, in one query (like an API-key lookup). */
export interface SessionOwnerRow extends Omit<KeyOwnerRow, 'key_id' | 'key_hash'> {
  session_id: string;
  token_hash: string;
  last_seen_at: string;
  expires_at: string;
}

export async function findSessionOwner(
  db: Executor,
  tokenHash: string,
  nowIso: string,
): Promise<SessionOwnerRow | undefined> {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('organizations as o', 'o.id', 'u.organization_id')
    .select(['s.id as session_id', 's.token_hash', 's.last_seen_at', 's.expires_at', ...PRINCIPAL_COLUMNS])
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', nowIso)
    .executeTakeFirst();
}

export async function insertSession(db: Executor, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export async function touchSession(db: Executor, id: string, lastSeen: string, expiresAt: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: lastSeen, expires_at: expiresAt })
    .where('id', '=', id)
    .execute();
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Drops the user's ended sessions, so the table stays the size of the live ones. */
export async function deleteExpiredSessions(db: Executor, userId: string, nowIso: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).where('expires_at', '<=', nowIso).execute();
}

export async function deleteUserSessions(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

export async function findPasswordHash(db: Executor, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('user_passwords').select('hash').where('user_id', '=', userId).executeTakeFirst();
  return row?.hash;
}

export async function savePasswordHash(db: Executor, userId: string, hash: string, nowIso: string): Promise<void> {
  await db
    .insertInto('user_passwords')
    .values({ user_id: userId, hash, updated_at: nowIso })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ hash, updated_at: nowIso }))
    .execute();
}

export async function insertPasswordLink(db: Executor, row: PasswordLinkRow): Promise<void> {
  // Links of the past are dropped as new ones are made: the table holds the live ones.
  await db.deleteFrom('password_links').where('expires_at', '<=', row.created_at).execute();
  await db.insertInto('password_links').values(row).execute();
}

export async function findPasswordLink(
  db: Executor,
  tokenHash: string,
  nowIso: string,
): Promise<PasswordLinkRow | undefined> {
  return db
    .selectFrom('password_links')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', nowIso)
    .executeTakeFirst();
}

export async function deletePasswordLink(db: Executor, id: string): Promise<number> {
  const res = await db.deleteFrom('password_links').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** Removes everything that lets a person sign in: keys are the caller's business. */
export async function deleteUserSignIn(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
  await db.deleteFrom('user_passwords').where('user_id', '=', userId).execute();
  await db.deleteFrom('password_links').where('user_id', '=', userId).execute();
}

/** Drops the accept link of an invite (the invite is used up). */
export async function deleteInviteLinks(db: Executor, inviteId: string): Promise<void> {
  await db.deleteFrom('password_links').where('invite_id', '=', inviteId).execute();
}
