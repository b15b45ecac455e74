import type { Executor } from '../db.js';
import type { BenchmarkReferenceTable } from '../schema.js';

/** The live tasks of a project among `ids`, with what marking a benchmark reads of each. */
export function tasksToMark(db: Executor, projectId: string, ids: readonly string[]) {
  return db
    .selectFrom('tasks')
    .select(['id', 'type', 'answer', 'is_pre_labeled', 'medical_brush_data_url', 'brush_data_url'])
    .where('project_id', '=', projectId)
    .where('deleted', '=', 0)
    .where('id', 'in', ids)
    .execute();
}

/** A task becoming a benchmark is assigned to nobody: it is handed out apart, never claimed. */
export async function setTaskType(db: Executor, ids: readonly string[], type: string, at: string, by: string) {
  if (ids.length === 0) return;
  const unassign = type === 'benchmark' ? { assignee: null } : {};
  await db
    .updateTable('tasks')
    .set({ type, updated_at: at, updated_by: by, ...unassign })
    .where('id', 'in', ids)
    .execute();
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

/** What an export says of a benchmark task: its reference and every submission with its score. */
export interface BenchmarkRecord {
  source: string;
  /** The reference answer, as the stored JSON text. */
  reference: string;
  submissions: { labeler: string; score: number; answer: string; created_at: string }[];
}

/** The benchmark records of these tasks (those that are benchmarks), in two bulk queries. */
export async function benchmarkRecordsOf(db: Executor, taskIds: string[]): Promise<Map<string, BenchmarkRecord>> {
  const out = new Map<string, BenchmarkRecord>();
  if (!taskIds.length) return out;
  const refs = await db
    .selectFrom('benchmark_references')
    .select(['task_id', 'source', 'answer'])
    .where('task_id', 'in', taskIds)
    .execute();
  for (const r of refs) out.set(r.task_id, { source: r.source, reference: r.answer, submissions: [] });
  if (!out.size) return out;
  const subs = await db
    .selectFrom('benchmark_submissions')
    .select(['task_id', 'labeler', 'score', 'answer', 'created_at'])
    .where('task_id', 'in', [...out.keys()])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const s of subs) out.get(s.task_id)?.submissions.push(s);
  return out;
}
