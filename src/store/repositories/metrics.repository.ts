import { sql } from 'kysely';
import type { Executor } from '../db.js';
import { facetCountsBy } from './task-facet.repository.js';

/*
 * Aggregates of the overview metrics, computed by the database (GROUP BY, COUNT, SUM, and
 * ORDER BY ... LIMIT 2 OFFSET k for percentiles): no query returns more rows than there are
 * stages, buckets or answer values. The same SQL runs on SQLite and PostgreSQL, so both give
 * the same figures. AnswerDistribution and AssetSize read figures kept as data is written
 * (metrics-answers, metrics-assets).
 */

/** Stage types where people spend the time that TimePerTask measures. */
export const TIMED_STAGE_TYPES = ['Label', 'Review'];

/** Tasks per stage, consensus copies included (they only ever sit in consensus sub-stages). */
export async function tasksPerStage(db: Executor, projectId: string): Promise<Map<string, number>> {
  return facetCountsBy(db, projectId, 'stage_id');
}

/** Tasks per status; consensus copies are not tasks of their own here. */
export async function tasksPerStatus(db: Executor, projectId: string): Promise<Map<string, number>> {
  return facetCountsBy(db, projectId, 'status', ['default']);
}

/** Count and sum of the durations of timed history entries, per stage. */
export async function durationTotals(db: Executor, projectId: string) {
  return db
    .selectFrom('task_history')
    .select(['stage_id', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.sum<number>('duration').as('total')])
    .where('project_id', '=', projectId)
    .where('stage_type', 'in', TIMED_STAGE_TYPES)
    .groupBy('stage_id')
    .execute();
}

/**
 * `limit` durations from sorted position `offset` (one stage, or every timed stage), ascending
 * or descending: what a percentile interpolates between. The index walks `offset` entries, so
 * percentiles above the median are read from the top.
 */
export async function durationsAt(
  db: Executor,
  projectId: string,
  stageId: string | undefined,
  at: { offset: number; limit: number; descending: boolean },
): Promise<number[]> {
  let q = db
    .selectFrom('task_history')
    .select('duration')
    .where('project_id', '=', projectId)
    .where('stage_type', 'in', TIMED_STAGE_TYPES);
  if (stageId !== undefined) q = q.where('stage_id', '=', stageId);
  const rows = await q
    .orderBy('duration', at.descending ? 'desc' : 'asc')
    .limit(at.limit)
    .offset(at.offset)
    .execute();
  return rows.map((r) => Number(r.duration));
}

/**
 * Tasks per tenth of the consensus score. Thresholds are cast to the column's own type so a
 * score stored as 0.7 lands in 70-80 on PostgreSQL too, where `real` is a 4-byte float.
 */
export async function consensusBuckets(db: Executor, projectId: string) {
  const ladder = Array.from(
    { length: 9 },
    (_, i) => sql`when consensus_score < cast(${sql.lit((i + 1) / 10)} as real) then ${sql.lit(i)}`,
  );
  const bucket = sql<number>`case ${sql.join(ladder, sql` `)} else 9 end`;
  return db
    .selectFrom('tasks')
    .select([bucket.as('bucket'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('project_id', '=', projectId)
    .where('deleted', '=', 0)
    .where('type', '=', 'default')
    .where('consensus_score', 'is not', null)
    .groupBy(bucket)
    .execute();
}
