import type { Executor } from '../db.js';
import { executeAtCommit } from '../pg-callback-queries.js';
import type { AuditLogTable } from '../schema.js';

/** In a transaction on PostgreSQL, the row is sent with the COMMIT, in its round trip. */
export async function insertAuditRecord(db: Executor, row: AuditLogTable): Promise<void> {
  await executeAtCommit(db, db.insertInto('audit_log').values(row));
}

export interface AuditFilter {
  orgId: string;
  userId?: string | undefined;
  operation?: string | undefined;
  targetId?: string | undefined;
  /** Ids at or after this one (the first id of the range's first second). */
  idFrom?: string | undefined;
  /** Ids before this one (the first id of the second after the range). */
  idBefore?: string | undefined;
  /** ISO times, exact bounds within the seconds the ids narrow to. */
  from?: string | undefined;
  to?: string | undefined;
  /** The cursor: ids strictly before this one (the last id of the previous page). */
  after?: string | undefined;
}

/**
 * Records of an organization, newest first, `limit` of them. Each filter picks the index that
 * leads with it (migration 016), read backwards from the cursor: the cost is the page's, however
 * many records the organization holds.
 */
export async function listAuditRecords(db: Executor, f: AuditFilter, limit: number): Promise<AuditLogTable[]> {
  let q = db.selectFrom('audit_log').selectAll().where('organization_id', '=', f.orgId);
  if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
  if (f.operation !== undefined) q = q.where('operation', '=', f.operation);
  if (f.targetId !== undefined) q = q.where('target_id', '=', f.targetId);
  if (f.idFrom !== undefined) q = q.where('id', '>=', f.idFrom);
  if (f.idBefore !== undefined) q = q.where('id', '<', f.idBefore);
  if (f.from !== undefined) q = q.where('at', '>=', f.from);
  if (f.to !== undefined) q = q.where('at', '<', f.to);
  if (f.after !== undefined) q = q.where('id', '<', f.after);
  return q.orderBy('id', 'desc').limit(limit).execute();
}

/** Deletes up to `batch` records with ids below `beforeId` (older), oldest first; answers how many. */
export async function deleteAuditRecordsBefore(db: Executor, beforeId: string, batch: number): Promise<number> {
  const res = await db
    .deleteFrom('audit_log')
    .where('id', 'in', (eb) =>
      eb.selectFrom('audit_log').select('id').where('id', '<', beforeId).orderBy('id').limit(batch),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
