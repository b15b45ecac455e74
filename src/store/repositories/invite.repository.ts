import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../db.js';
import type { InviteTable } from '../schema.js';

export type InviteRow = Selectable<InviteTable>;

export async function listOrgInvites(db: Executor, orgId: string): Promise<InviteRow[]> {
  return db.selectFrom('invites').selectAll().where('organization_id', '=', orgId).orderBy('created_at').execute();
}

/** The organization's open invite for the e-mail, if any. */
export async function findInvite(db: Executor, orgId: string, email: string) {
  return db
    .selectFrom('invites')
    .select(['id', 'organization_role'])
    .where('organization_id', '=', orgId)
    .where('email', '=', email)
    .executeTakeFirst();
}

export async function findInviteById(db: Executor, id: string) {
  return db
    .selectFrom('invites')
    .select(['organization_role', 'project_assignments'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The ids of the organization's open invites for any of the e-mails. */
export async function inviteIdsFor(db: Executor, orgId: string, emails: readonly string[]): Promise<string[]> {
  if (emails.length === 0) return [];
  const rows = await db
    .selectFrom('invites')
    .select('id')
    .where('organization_id', '=', orgId)
    .where('email', 'in', emails)
    .execute();
  return rows.map((r) => r.id);
}

export async function insertInvite(db: Executor, row: Insertable<InviteTable>): Promise<void> {
  await db.insertInto('invites').values(row).execute();
}

/** Withdraws the organization's open invite for the e-mail (a new one or the account replaces it). */
export async function deleteInviteFor(db: Executor, orgId: string, email: string): Promise<void> {
  await db.deleteFrom('invites').where('organization_id', '=', orgId).where('email', '=', email).execute();
}

export async function deleteInvites(db: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('invites').where('id', 'in', ids).execute();
}
