import type { Executor } from '../db.js';
import { assetInBatches, taskInBatches } from './in-batches.js';

/*
 * The aggregates of the performance report within the interval and the batches: the work of
 * the history (each entry a person's exit of a stage), which the report reads from the counts of
 * migration 029 (work-count.repository.ts; tests count the same from the entries themselves in
 * test/helpers/work-reference.ts), the issues and the benchmark submissions.
 */

export interface PerformanceScope {
  projectId: string;
  /** ISO bounds: from inclusive, to exclusive. */
  from?: string | undefined;
  to?: string | undefined;
  batchIds?: string[] | undefined;
}

export interface WorkFigures {
  user: string;
  stage_id: string;
  stage_name: string;
  stage_type: string;
  submitted: number;
  reviewed: number;
  accepted: number;
  rejected: number;
  time_spent: number;
}

/** Per person and stage (the stage the task was in when it was opened): issues raised. */
export async function issueFigures(
  db: Executor,
  s: PerformanceScope,
): Promise<{ user: string; stage_id: string; issues: number }[]> {
  let q = db.selectFrom('issues').where('issues.project_id', '=', s.projectId).where('issues.deleted', '=', 0);
  if (s.from !== undefined) q = q.where('issues.created_at', '>=', s.from);
  if (s.to !== undefined) q = q.where('issues.created_at', '<', s.to);
  const batchIds = s.batchIds;
  if (batchIds) q = q.where(assetInBatches('issues.asset_id', batchIds));
  const rows = await q
    .select(['issues.created_by as user', 'issues.stage_id', (eb) => eb.fn.countAll<number>().as('issues')])
    .groupBy(['issues.created_by', 'issues.stage_id'])
    .execute();
  return rows.map((r) => ({ ...r, issues: Number(r.issues) }));
}

export interface BenchmarkFigures {
  user: string;
  count: number;
  average: number;
}

/** Per labeler: benchmark submissions and their average score (0 to 100), within the scope. */
export async function benchmarkFigures(db: Executor, s: PerformanceScope): Promise<BenchmarkFigures[]> {
  let q = db.selectFrom('benchmark_submissions as bs').where('bs.project_id', '=', s.projectId);
  if (s.from !== undefined) q = q.where('bs.created_at', '>=', s.from);
  if (s.to !== undefined) q = q.where('bs.created_at', '<', s.to);
  const batchIds = s.batchIds;
  if (batchIds) {
    q = q.where(taskInBatches('bs.task_id', batchIds));
  }
  const rows = await q
    .select([
      'bs.labeler as user',
      (eb) => eb.fn.countAll<number>().as('count'),
      (eb) => eb.fn.avg<number>('bs.score').as('average'),
    ])
    .groupBy('bs.labeler')
    .execute();
  return rows.map((r) => ({ user: r.user, count: Number(r.count), average: Number(r.average) }));
}
