import type { Executor } from '../db.js';
import type { BenchmarkReferenceTable } from '../schema.js';

/** The live tasks of a project among `ids`, with what marking a benchmark reads of each. */
export function tasksToMark(db: Executor, projectId: string, ids: readonly string[]) {
  return db
    .selectFrom('tasks')
    .select(['id', 'type', 'answer', 'is_pre_labeled'])
    .where('project_id', '=', projectId)
    .where('deleted', '=', 0)
    .where('id', 'in', ids)
    .execute();
}

export async function setTaskType(db: Executor, ids: readonly string[], type: string, at: string, by: string) {
  if (ids.length === 0) return;
  await db.updateTable('tasks').set({ type, updated_at: at, updated_by: by }).where('id', 'in', ids).execute();
}

/** Marking a benchmark again replaces its reference. */
export async function putReferences(db: Executor, rows: readonly BenchmarkReferenceTable[]) {
  if (rows.length === 0) return;
  await db
    .deleteFrom('benchmark_references')
    .where(
      'task_id',
      'in',
      rows.map((r) => r.task_id),
    )
    .execute();
  await db
    .insertInto('benchmark_references')
    .values([...rows])
    .execute();
}

/** Unmarking forgets the reference and what was measured against it. */
export async function deleteBenchmarks(db: Executor, ids: readonly string[]) {
  if (ids.length === 0) return;
  await db.deleteFrom('benchmark_handouts').where('task_id', 'in', ids).execute();
  await db.deleteFrom('benchmark_submissions').where('task_id', 'in', ids).execute();
  await db.deleteFrom('benchmark_references').where('task_id', 'in', ids).execute();
}

export function findReference(db: Executor, taskId: string) {
  return db.selectFrom('benchmark_references').selectAll().where('task_id', '=', taskId).executeTakeFirst();
}

/** A project's benchmark submissions (of one labeler when given), oldest first. */
export function listSubmissions(db: Executor, projectId: string, labeler: string | undefined) {
  let q = db.selectFrom('benchmark_submissions').selectAll().where('project_id', '=', projectId);
  if (labeler !== undefined) q = q.where('labeler', '=', labeler);
  return q.orderBy('created_at').orderBy('id').limit(10_000).execute();
}
