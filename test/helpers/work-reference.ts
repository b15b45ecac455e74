import { sql } from 'kysely';
import type { Executor } from '../../src/store/db.js';
import { assetInBatches } from '../../src/store/repositories/in-batches.js';
import type { PerformanceScope, WorkFigures } from '../../src/store/repositories/performance.repository.js';
import type { ReviewDay } from '../../src/store/repositories/quality.repository.js';

/*
 * The work of the task history counted from its entries themselves, the way the performance report
 * and the Quality page counted it before the work counts of migration 029 kept it. Tests compare
 * what the counts answer with these.
 */

/** `day` of an ISO time column: its first ten characters, on both engines. */
const dayOf = (column: string) => sql<string>`substr(${sql.ref(column)}, 1, 10)`;

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
  if (batchIds) q = q.where(assetInBatches('task_history.asset_id', batchIds));
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
/** Per reviewer and day: review decisions counted from the task history's entries themselves. */
export async function historyReviewDays(db: Executor, s: PerformanceScope): Promise<ReviewDay[]> {
  let q = db
    .selectFrom('task_history as th')
    .where('th.project_id', '=', s.projectId)
    .where('th.completed_by', 'is not', null)
    .where('th.trigger', '=', 'review');
  if (s.from !== undefined) q = q.where('th.completed_at', '>=', s.from);
  if (s.to !== undefined) q = q.where('th.completed_at', '<', s.to);
  if (s.batchIds) q = q.where(assetInBatches('th.asset_id', s.batchIds));
  const rows = await q
    .select([
      sql<string>`th.completed_by`.as('reviewer'),
      dayOf('th.completed_at').as('day'),
      sql<number>`sum(case when th.review_status = 'Accepted' then 1 else 0 end)`.as('accepted'),
      sql<number>`sum(case when th.review_status = 'Rejected' then 1 else 0 end)`.as('rejected'),
    ])
    .groupBy(['th.completed_by', dayOf('th.completed_at')])
    .execute();
  return rows.map((r) => ({ ...r, accepted: Number(r.accepted), rejected: Number(r.rejected) }));
}
