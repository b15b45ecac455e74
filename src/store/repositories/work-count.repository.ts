import { PostgresAdapter, type RawBuilder, sql } from 'kysely';
import type { Executor } from '../db.js';
import type { PerformanceScope, WorkFigures } from './performance.repository.js';
import { assetInBatches } from './in-batches.js';

/*
 * Readers of the work that migration 029 counts per project, batch ('' for all), period, person,
 * stage and trigger: whole UTC hours from work_counts, the whole minutes at an interval's ends
 * from work_minute_counts, the seconds left at its very ends from the task history's own
 * entries. All three parts are summed in one statement, so an answer is the history's count
 * exactly. Several batches are summed from the counts when no asset is in two of them
 * (batch_overlaps); otherwise the whole interval is counted from the history, as an asset in two
 * batches must count once. On PostgreSQL a key's figure is the SUM of its delta rows, which the
 * job worker folds back into one row per key (foldGatheredWorkCounts).
 */

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
/** Delta rows a (project, batch) may gather beyond one per key before they are folded. */
const FOLD_AT = 256;
const TABLES = ['work_counts', 'work_minute_counts'] as const;
type Source = (typeof TABLES)[number] | 'task_history';

/** A part of an interval and where it is counted: counters by period key, the history by ISO time. */
export interface IntervalPiece {
  source: Source;
  from?: string | undefined;
  to?: string | undefined;
}

const LEVELS: { source: Source; unit: number; chars: number }[] = [
  { source: 'work_counts', unit: HOUR_MS, chars: 13 },
  { source: 'work_minute_counts', unit: MINUTE_MS, chars: 16 },
];

/**
 * [from, to) (ms, undefined for no bound) cut into whole hours, the whole minutes at either
 * end, and the rest, each piece with the source that counts it.
 */
export function intervalPieces(from: number | undefined, to: number | undefined, level = 0): IntervalPiece[] {
  if (from !== undefined && to !== undefined && from >= to) return [];
  const l = LEVELS[level];
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  if (!l) return [{ source: 'task_history', from: iso(from), to: iso(to) }];
  const first = from === undefined ? undefined : Math.ceil(from / l.unit) * l.unit;
  const last = to === undefined ? undefined : Math.floor(to / l.unit) * l.unit;
  if (first !== undefined && last !== undefined && first >= last) return intervalPieces(from, to, level + 1);
  const key = (ms: number | undefined) => iso(ms)?.slice(0, l.chars);
  const pieces: IntervalPiece[] = [{ source: l.source, from: key(first), to: key(last) }];
  if (from !== undefined && first !== undefined && from < first) pieces.push(...intervalPieces(from, first, level + 1));
  if (to !== undefined && last !== undefined && last < to) pieces.push(...intervalPieces(last, to, level + 1));
  return pieces;
}

/**
 * The batch keys whose counts sum to the scope's figure: [''] for no filter, the distinct
 * batches when no asset is in two of them, undefined when one is (count from the history).
 */
export async function countableBatches(db: Executor, batchIds: string[] | undefined): Promise<string[] | undefined> {
  if (batchIds === undefined) return [''];
  const ids = [...new Set(batchIds)];
  if (ids.length < 2) return ids;
  const shared = await db
    .selectFrom('batch_overlaps')
    .select((eb) => eb.fn.sum<number>('assets').as('assets'))
    .where('batch_a', 'in', ids)
    .where('batch_b', 'in', ids)
    .executeTakeFirst();
  return Number(shared?.assets ?? 0) === 0 ? ids : undefined;
}

const WORK = sql`h.completed_by IS NOT NULL AND (h."trigger" IN ('submit', 'review') OR h.duration > 0)`;

function historyPart(s: PerformanceScope, p: IntervalPiece, reviewsOnly: boolean): RawBuilder<unknown> {
  const where = [sql`h.project_id = ${s.projectId}`, WORK];
  if (p.from !== undefined) where.push(sql`h.completed_at >= ${p.from}`);
  if (p.to !== undefined) where.push(sql`h.completed_at < ${p.to}`);
  if (reviewsOnly) where.push(sql`h."trigger" = 'review'`);
  if (s.batchIds) {
    where.push(assetInBatches('h.asset_id', s.batchIds));
  }
  const day = sql`substr(h.completed_at, 1, 10)`;
  return sql`SELECT h.completed_by AS person, h.stage_id, h.stage_name, h.stage_type, h."trigger", ${day} AS day,
      sum(CASE WHEN h.review_status = 'Accepted' THEN 1 ELSE 0 END) AS accepted,
      sum(CASE WHEN h.review_status = 'Rejected' THEN 1 ELSE 0 END) AS rejected,
      count(*) AS entries, sum(h.duration) AS time_spent
    FROM task_history AS h WHERE ${sql.join(where, sql` AND `)}
    GROUP BY h.completed_by, h.stage_id, h.stage_name, h.stage_type, h."trigger", ${day}`;
}

function counterPart(
  s: PerformanceScope,
  p: IntervalPiece,
  batches: string[],
  reviewsOnly: boolean,
): RawBuilder<unknown> {
  const where = [sql`c.project_id = ${s.projectId}`, sql`c.batch_id IN (${sql.join(batches)})`];
  if (p.from !== undefined) where.push(sql`c.period >= ${p.from}`);
  if (p.to !== undefined) where.push(sql`c.period < ${p.to}`);
  if (reviewsOnly) where.push(sql`c."trigger" = 'review'`);
  const day = sql`substr(c.period, 1, 10)`;
  return sql`SELECT c.person, c.stage_id, c.stage_name, c.stage_type, c."trigger", ${day} AS day,
      sum(c.accepted) AS accepted, sum(c.rejected) AS rejected, sum(c.entries) AS entries,
      sum(c.time_spent) AS time_spent
    FROM ${sql.table(p.source)} AS c WHERE ${sql.join(where, sql` AND `)}
    GROUP BY c.person, c.stage_id, c.stage_name, c.stage_type, c."trigger", ${day}
    HAVING sum(c.entries) <> 0`;
}

/**
 * The work in scope per person, stage, trigger and UTC day as one derived table (columns person,
 * stage_id, stage_name, stage_type, trigger, day, accepted, rejected, entries, time_spent), or
 * undefined when the scope names no batch at all.
 */
async function scopedWork(db: Executor, s: PerformanceScope, reviewsOnly: boolean) {
  if (s.batchIds && s.batchIds.length === 0) return undefined;
  const batches = await countableBatches(db, s.batchIds);
  const from = s.from === undefined ? undefined : Date.parse(s.from);
  const to = s.to === undefined ? undefined : Date.parse(s.to);
  const pieces = batches ? intervalPieces(from, to) : [{ source: 'task_history' as const, from: s.from, to: s.to }];
  if (!pieces.length) return undefined;
  const parts = pieces.map((p) =>
    p.source === 'task_history' || !batches ? historyPart(s, p, reviewsOnly) : counterPart(s, p, batches, reviewsOnly),
  );
  return sql`(${sql.join(parts, sql` UNION ALL `)}) AS w`;
}

/** Per person and stage: submissions, reviews (accepted, rejected) and time reported. */
export async function countedWorkFigures(db: Executor, s: PerformanceScope): Promise<WorkFigures[]> {
  const work = await scopedWork(db, s, false);
  if (!work) return [];
  const { rows } = await sql<WorkFigures>`
    SELECT w.person AS "user", w.stage_id, max(w.stage_name) AS stage_name, max(w.stage_type) AS stage_type,
      sum(CASE WHEN w."trigger" = 'submit' THEN w.entries ELSE 0 END) AS submitted,
      sum(CASE WHEN w."trigger" = 'review' THEN w.entries ELSE 0 END) AS reviewed,
      sum(w.accepted) AS accepted, sum(w.rejected) AS rejected, sum(w.time_spent) AS time_spent
    FROM ${work} GROUP BY w.person, w.stage_id`.execute(db);
  return rows.map((r) => ({
    ...r,
    submitted: Number(r.submitted),
    reviewed: Number(r.reviewed),
    accepted: Number(r.accepted),
    rejected: Number(r.rejected),
    time_spent: Number(r.time_spent),
  }));
}

export interface ReviewDay {
  reviewer: string;
  day: string;
  accepted: number;
  rejected: number;
}

/** Per reviewer and UTC day: review decisions (trigger 'review'). */
export async function countedReviewDays(db: Executor, s: PerformanceScope): Promise<ReviewDay[]> {
  const work = await scopedWork(db, s, true);
  if (!work) return [];
  const { rows } = await sql<ReviewDay>`
    SELECT w.person AS reviewer, w.day, sum(w.accepted) AS accepted, sum(w.rejected) AS rejected
    FROM ${work} GROUP BY w.person, w.day HAVING sum(w.entries) <> 0`.execute(db);
  return rows.map((r) => ({ ...r, accepted: Number(r.accepted), rejected: Number(r.rejected) }));
}

const KEY = sql.raw('batch_id, period, person, stage_id, stage_name, stage_type, "trigger"');

/**
 * PostgreSQL: replaces the rows of a project's batch ('' included) by one per key, in one
 * statement per table. Deltas of writers still in flight are invisible to it and stay; two folds
 * at once delete disjoint rows. SQLite keeps one row per key already.
 */
export async function foldWorkCounts(db: Executor, projectId: string, batchId: string): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of TABLES) {
    await sql`
      WITH gone AS (
        DELETE FROM ${sql.table(table)} WHERE project_id = ${projectId} AND batch_id = ${batchId}
        RETURNING ${KEY}, accepted, rejected, entries, time_spent)
      INSERT INTO ${sql.table(table)} (project_id, ${KEY}, accepted, rejected, entries, time_spent)
      SELECT ${projectId}, ${KEY}, sum(accepted), sum(rejected), sum(entries), sum(time_spent) FROM gone
      GROUP BY ${KEY}
      HAVING sum(entries) <> 0 OR sum(accepted) <> 0 OR sum(rejected) <> 0 OR sum(time_spent) <> 0`.execute(db);
  }
}

/**
 * PostgreSQL: folds the (project, batch) pairs of either table that have gathered FOLD_AT rows
 * beyond their keys, at most `limit` of them, and the batch overlaps; the job worker calls it
 * now and then. Answers how many pairs it folded.
 */
export async function foldGatheredWorkCounts(db: Executor, limit = 50): Promise<number> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return 0;
  const seen = new Set<string>();
  for (const table of TABLES) {
    const { rows } = await sql<{ project_id: string; batch_id: string }>`
      SELECT project_id, batch_id FROM ${sql.table(table)} GROUP BY project_id, batch_id
      HAVING count(*) > count(DISTINCT (period, person, stage_id, stage_name, stage_type, "trigger")) + ${FOLD_AT}
      LIMIT ${limit}`.execute(db);
    for (const r of rows) seen.add(JSON.stringify([r.project_id, r.batch_id]));
  }
  for (const pair of seen) {
    const [projectId, batchId] = JSON.parse(pair) as [string, string];
    await foldWorkCounts(db, projectId, batchId);
  }
  await sql`
    WITH gone AS (DELETE FROM batch_overlaps WHERE (SELECT count(*) FROM batch_overlaps) >
        (SELECT count(DISTINCT (batch_a, batch_b)) FROM batch_overlaps) + ${FOLD_AT} RETURNING batch_a, batch_b, assets)
    INSERT INTO batch_overlaps (batch_a, batch_b, assets)
    SELECT batch_a, batch_b, sum(assets) FROM gone GROUP BY batch_a, batch_b HAVING sum(assets) <> 0`.execute(db);
  return seen.size;
}
