import { sql } from 'kysely';
import type { Executor } from '../db.js';
import type { PerformanceScope } from './performance.repository.js';
import { countedReviewDays, type ReviewDay } from './work-count.repository.js';
import { assetInBatches, taskInBatches } from './in-batches.js';

/*
 * The Quality page's aggregates, each one GROUP BY within the project, an interval and batches:
 * benchmark scores per labeler and day (the covering index of migration 022), consensus
 * measures per ontology item (consensus_agreements' covering index), review decisions per
 * reviewer and day (the work counts of migration 029) and issues per set of error codes (issues
 * by project and creation time, migration 002).
 */

/** `day` of an ISO time column: its first ten characters, on both engines. */
const dayOf = (column: string) => sql<string>`substr(${sql.ref(column)}, 1, 10)`;

export interface ScoreDay {
  labeler: string;
  day: string;
  count: number;
  total: number;
}

/** Per labeler and day: benchmark submissions and the sum of their scores. */
export async function benchmarkDays(db: Executor, s: PerformanceScope): Promise<ScoreDay[]> {
  let q = db.selectFrom('benchmark_submissions as bs').where('bs.project_id', '=', s.projectId);
  if (s.from !== undefined) q = q.where('bs.created_at', '>=', s.from);
  if (s.to !== undefined) q = q.where('bs.created_at', '<', s.to);
  if (s.batchIds) {
    q = q.where(taskInBatches('bs.task_id', s.batchIds));
  }
  const rows = await q
    .select([
      'bs.labeler as labeler',
      dayOf('bs.created_at').as('day'),
      (eb) => eb.fn.countAll<number>().as('count'),
      (eb) => eb.fn.sum<number>('bs.score').as('total'),
    ])
    .groupBy(['bs.labeler', dayOf('bs.created_at')])
    .execute();
  return rows.map((r) => ({ labeler: r.labeler, day: r.day, count: Number(r.count), total: Number(r.total) }));
}

export interface AgreementCell {
  schema_id: string;
  kind: string;
  answer_a: string;
  answer_b: string;
  n: number;
  total: number;
}

/** Per ontology item (and, for questions, per pair of answers): how many measures and their sum. */
export async function agreementCells(db: Executor, s: PerformanceScope): Promise<AgreementCell[]> {
  let q = db.selectFrom('consensus_agreements as ca').where('ca.project_id', '=', s.projectId);
  if (s.from !== undefined) q = q.where('ca.decided_at', '>=', s.from);
  if (s.to !== undefined) q = q.where('ca.decided_at', '<', s.to);
  if (s.batchIds) q = q.where(assetInBatches('ca.asset_id', s.batchIds));
  const rows = await q
    .select([
      'ca.schema_id',
      'ca.kind',
      'ca.answer_a',
      'ca.answer_b',
      (eb) => eb.fn.countAll<number>().as('n'),
      (eb) => eb.fn.sum<number>('ca.value').as('total'),
    ])
    .groupBy(['ca.schema_id', 'ca.kind', 'ca.answer_a', 'ca.answer_b'])
    .execute();
  return rows.map((r) => ({ ...r, n: Number(r.n), total: Number(r.total) }));
}

export type { ReviewDay };

/**
 * Per reviewer and day: review decisions, read from the work counts of migration 029 (whole
 * hours and minutes; the seconds at an interval's ends and batches sharing an asset from the
 * history), equal to the count from the entries themselves (test/helpers/work-reference.ts).
 */
export async function reviewDays(db: Executor, s: PerformanceScope): Promise<ReviewDay[]> {
  return countedReviewDays(db, s);
}

/** Live issues per distinct error-code list (the JSON text as kept). */
export async function issueCodeSets(db: Executor, s: PerformanceScope): Promise<{ codes: string; n: number }[]> {
  let q = db.selectFrom('issues as i').where('i.project_id', '=', s.projectId).where('i.deleted', '=', 0);
  if (s.from !== undefined) q = q.where('i.created_at', '>=', s.from);
  if (s.to !== undefined) q = q.where('i.created_at', '<', s.to);
  if (s.batchIds) q = q.where(assetInBatches('i.asset_id', s.batchIds));
  const rows = await q
    .select(['i.error_codes as codes', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('i.error_codes')
    .execute();
  return rows.map((r) => ({ codes: r.codes, n: Number(r.n) }));
}
