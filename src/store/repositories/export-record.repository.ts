import type { Executor } from '../db.js';
import type { ExportRecordTable } from '../schema.js';

/** How many export records a project keeps: the newest. */
export const KEEP_RECORDS = 50;

/** Records an export, and drops the project's records beyond the newest KEEP_RECORDS. */
export async function insertExportRecord(db: Executor, row: ExportRecordTable): Promise<void> {
  await db.insertInto('export_records').values(row).execute();
  const kept = db
    .selectFrom('export_records')
    .select('id')
    .where('project_id', '=', row.project_id)
    .orderBy('id', 'desc')
    .limit(KEEP_RECORDS);
  await db.deleteFrom('export_records').where('project_id', '=', row.project_id).where('id', 'not in', kept).execute();
}

/** A page of a project's export records, newest first, and how many it has. */
export async function listExportRecords(db: Executor, projectId: string, offset: number, limit: number) {
  const base = db.selectFrom('export_records').where('project_id', '=', projectId);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('id', 'desc').offset(offset).limit(limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
