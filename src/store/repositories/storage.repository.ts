import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../db.js';
import type { StorageTable } from '../schema.js';

export type StorageRow = Selectable<StorageTable>;
export type NewStorage = Insertable<StorageTable>;

export async function insertStorage(db: Executor, row: NewStorage): Promise<void> {
  await db.insertInto('storages').values(row).execute();
}

/** A live storage of the organization; another organization's storage is simply not found. */
export async function findStorage(db: Executor, orgId: string, id: string): Promise<StorageRow | undefined> {
  return db
    .selectFrom('storages')
    .selectAll()
    .where('id', '=', id)
    .where('organization_id', '=', orgId)
    .where('deleted', '=', 0)
    .executeTakeFirst();
}

export interface StorageListQuery {
  orgId: string;
  id: string | undefined;
  offset: number;
  limit: number;
}

/** Live storages of an organization, newest first. */
export async function listStorages(db: Executor, q: StorageListQuery): Promise<{ rows: StorageRow[]; total: number }> {
  let base = db.selectFrom('storages').where('organization_id', '=', q.orgId).where('deleted', '=', 0);
  if (q.id !== undefined) base = base.where('id', '=', q.id);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(q.offset).limit(q.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Soft delete: the record stays (flagged), its sealed secrets go. */
export async function softDeleteStorage(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('storages').set({ deleted: 1, deleted_at: at, secrets: null }).where('id', '=', id).execute();
}

/** Every storage still holding sealed secrets, in id order, `limit` at a time after `afterId`. */
export async function storagesWithSecrets(
  db: Executor,
  afterId: string,
  limit: number,
): Promise<{ id: string; secrets: string }[]> {
  const rows = await db
    .selectFrom('storages')
    .select(['id', 'secrets'])
    .where('secrets', 'is not', null)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.flatMap((r) => (r.secrets === null ? [] : [{ id: r.id, secrets: r.secrets }]));
}

export async function updateSecrets(db: Executor, id: string, secrets: string): Promise<void> {
  await db.updateTable('storages').set({ secrets }).where('id', '=', id).execute();
}

/** Which of these ids are live storages of the organization (ids that are not ids match none). */
export async function liveStorageIds(db: Executor, orgId: string, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  if (ids.length === 0) return found;
  const rows = await db
    .selectFrom('storages')
    .select('id')
    .where('organization_id', '=', orgId)
    .where('deleted', '=', 0)
    .where('id', 'in', ids)
    .execute();
  for (const r of rows) found.add(r.id);
  return found;
}
