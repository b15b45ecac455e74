import { sql } from 'kysely';
import type { Executor } from '../db.js';

/** Delta rows a project may gather (PostgreSQL) before a reader folds them into one. */
const FOLD_AT = 64;

/**
 * The project's live (not deleted) task count as the triggers of migration 007 keep it: the sum
 * of its `task_counts` rows, exact on every engine.
 */
export async function storedTaskCount(db: Executor, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('task_counts')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>('live'), eb.lit(0)).as('live'),
      eb.fn.countAll<number>().as('rows'),
    ])
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  if (Number(row.rows) > FOLD_AT) await foldTaskCount(db, projectId);
  return Number(row.live);
}

/**
 * Replaces a project's delta rows by their sum, in one statement. Only PostgreSQL gathers
 * deltas. Deltas of writers still in flight are invisible here and stay; two readers folding at
 * once delete disjoint rows (the second skips rows the first deleted) and each re-inserts only
 * the sum of what it deleted, so nothing is counted twice or lost.
 */
export async function foldTaskCount(db: Executor, projectId: string): Promise<void> {
  await sql`
    WITH gone AS (DELETE FROM task_counts WHERE project_id = ${projectId} RETURNING live)
    INSERT INTO task_counts (project_id, live)
    SELECT ${projectId}, sum(live) FROM gone HAVING count(*) > 0`.execute(db);
}
