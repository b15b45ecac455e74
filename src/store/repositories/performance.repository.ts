import { type ExpressionBuilder, sql } from 'kysely';
import type { Executor } from '../db.js';
import type { Database } from '../schema.js';

/*
 * The aggregates of the performance report within the interval and the batches: the work of
 * the history (each entry a person's exit of a stage), which the report reads from the counts of
 * migration 029 (work-count.repository.ts) and historyWorkFigures counts from the entries
 * themselves (the (project_id, completed_at, ...) index of migration 010 alone), the issues and the
 * benchmark submissions.
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

/** The asset of the row (by its asset column) is in any of the batches. */
function inBatches(batchIds: string[], assetColumn: 'task_history.asset_id' | 'issues.asset_id') {
  return (eb: ExpressionBuilder<Database, 'task_history' | 'issues'>) =>
    eb.exists(
      eb
        .selectFrom('asset_batches as ab')
        .select('ab.asset_id')
        .where('ab.asset_id', '=', sql.ref<string>(assetColumn))
        .where('ab.batch_id', 'in', batchIds.length ? batchIds : ['']),
    );
}

/**
 * Per person and stage: submissions, reviews (accepted, rejected) and time, counted from the
 * history's entries themselves (the report reads countedWorkFigures, which must equal this).
 */
export async function historyWorkFigures(db: Executor, s: PerformanceScope): Promise<WorkFigures[]> {
  let q = db
    .selectFrom('task_history')
    .where('task_history.project_id', '=', s.projectId)
    .where('task_history.completed_by', 'is not', null)
    // Work, not bookkeeping: a requeue or forward by a manager closes a stage in their name but
    // is no submission, review or time spent (it drew a row of zeros for them).
    .where((eb) =>
      eb.or([eb('task_history.trigger', 'in', ['submit', 'review']), eb('task_history.duration', '>', 0)]),
    );
  if (s.from !== undefined) q = q.where('task_history.completed_at', '>=', s.from);
  if (s.to !== undefined) q = q.where('task_history.completed_at', '<', s.to);
  const batchIds = s.batchIds;
  if (batchIds) q = q.where(inBatches(batchIds, 'task_history.asset_id'));
  const rows = await q
    .select([
      sql<string>`task_history.completed_by`.as('user'),
      'task_history.stage_id',
      sql<string>`max(task_history.stage_name)`.as('stage_name'),
      sql<string>`max(task_history.stage_type)`.as('stage_type'),
      sql<number>`sum(case when task_history.trigger = 'submit' then 1 else 0 end)`.as('submitted'),
      sql<number>`sum(case when task_history.trigger = 'review' then 1 else 0 end)`.as('reviewed'),
      sql<number>`sum(case when task_history.review_status = 'Accepted' then 1 else 0 end)`.as('accepted'),
      sql<number>`sum(case when task_history.review_status = 'Rejected' then 1 else 0 end)`.as('rejected'),
      sql<number>`sum(task_history.duration)`.as('time_spent'),
    ])
    .groupBy(['task_history.completed_by', 'task_history.stage_id'])
    .execute();
  return rows.map((r) => ({
    ...r,
    submitted: Number(r.submitted),
    reviewed: Number(r.reviewed),
    accepted: Number(r.accepted),
    rejected: Number(r.rejected),
    time_spent: Number(r.time_spent),
  }));
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
  if (batchIds) q = q.where(inBatches(batchIds, 'issues.asset_id'));
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
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('tasks as t')
          .innerJoin('asset_batches as ab', 'ab.asset_id', 't.asset_id')
          .select('t.id')
          .whereRef('t.id', '=', 'bs.task_id')
          .where('ab.batch_id', 'in', batchIds.length ? batchIds : ['']),
      ),
    );
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
