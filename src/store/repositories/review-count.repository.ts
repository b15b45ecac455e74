import { PostgresAdapter, sql } from 'kysely';
import type { Executor } from '../db.js';

/*
 * Readers of the review decisions that migration 026 keeps per project, batch ('' for all), UTC
 * hour and reviewer. A figure is the SUM of its key's rows: one row per key on SQLite; on
 * PostgreSQL also the delta rows writers appended, which readers and the job worker fold back
 * into one row per key once there are many (as task-facet.repository.ts does for task counts).
 */

/** Delta rows a (project, batch) may gather beyond one per key before they are folded. */
const FOLD_AT = 256;

export interface ReviewCountDay {
  reviewer: string;
  day: string;
  accepted: number;
  rejected: number;
}

/**
 * Per reviewer and UTC day: the decisions kept for one batch ('' for all) in the whole hours
 * `fromHour` (inclusive) to `toHour` (exclusive), each 'YYYY-MM-DDTHH' or undefined for no bound.
 */
export async function countedReviewDays(
  db: Executor,
  projectId: string,
  batchId: string,
  fromHour: string | undefined,
  toHour: string | undefined,
): Promise<ReviewCountDay[]> {
  let q = db.selectFrom('review_counts').where('project_id', '=', projectId).where('batch_id', '=', batchId);
  if (fromHour !== undefined) q = q.where('hour', '>=', fromHour);
  if (toHour !== undefined) q = q.where('hour', '<', toHour);
  const day = sql<string>`substr(hour, 1, 10)`;
  const rows = await q
    .select((eb) => [
      'reviewer',
      day.as('day'),
      eb.fn.sum<number>('accepted').as('accepted'),
      eb.fn.sum<number>('rejected').as('rejected'),
      eb.fn.sum<number>('reviews').as('reviews'),
      eb.fn.countAll<number>().as('rows'),
      eb.fn.count<number>('hour').distinct().as('keys'),
    ])
    .groupBy(['reviewer', day])
    .execute();
  const gathered = rows.reduce((n, r) => n + Number(r.rows) - Number(r.keys), 0);
  if (gathered > FOLD_AT) await foldReviewCounts(db, projectId, batchId);
  return rows
    .filter((r) => Number(r.reviews) !== 0)
    .map((r) => ({ reviewer: r.reviewer, day: r.day, accepted: Number(r.accepted), rejected: Number(r.rejected) }));
}

/**
 * PostgreSQL: replaces the rows of a project's batch ('' included) by one per key, in one
 * statement. Deltas of writers still in flight are invisible to it and stay; two folds at once
 * delete disjoint rows. SQLite keeps one row per key already.
 */
export async function foldReviewCounts(db: Executor, projectId: string, batchId: string): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    WITH gone AS (
      DELETE FROM review_counts WHERE project_id = ${projectId} AND batch_id = ${batchId}
      RETURNING batch_id, hour, reviewer, accepted, rejected, reviews)
    INSERT INTO review_counts (project_id, batch_id, hour, reviewer, accepted, rejected, reviews)
    SELECT ${projectId}, batch_id, hour, reviewer, sum(accepted), sum(rejected), sum(reviews) FROM gone
    GROUP BY batch_id, hour, reviewer HAVING sum(reviews) <> 0 OR sum(accepted) <> 0 OR sum(rejected) <> 0`.execute(db);
}

/**
 * PostgreSQL: folds the (project, batch) pairs that have gathered FOLD_AT rows beyond their
 * keys, at most `limit` of them; the job worker calls it now and then. Answers how many it folded.
 */
export async function foldGatheredReviewCounts(db: Executor, limit = 50): Promise<number> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return 0;
  const heavy = await db
    .selectFrom('review_counts')
    .select(['project_id', 'batch_id'])
    .groupBy(['project_id', 'batch_id'])
    .having((eb) =>
      eb(eb.fn.countAll(), '>', sql<number>`count(DISTINCT hour || ${'\u0001'} || reviewer) + ${FOLD_AT}`),
    )
    .limit(limit)
    .execute();
  for (const h of heavy) await foldReviewCounts(db, h.project_id, h.batch_id);
  return heavy.length;
}
