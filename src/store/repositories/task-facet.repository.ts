import { PostgresAdapter, sql } from 'kysely';
import type { Executor } from '../db.js';
import type { TaskFilter } from './task-filter.js';

/*
 * Readers of the live task counts that migration 012 keeps per project, batch ('' for all),
 * stage, status and type. A figure is the SUM of its key's rows: one row per key on SQLite; on
 * PostgreSQL also the delta rows writers appended, which readers fold back into one row per key
 * once there are many.
 */

/**
 * Delta rows a (project, batch) may gather beyond one per key before a reader or the worker
 * folds them (PostgreSQL only): a workflow of many stages has many keys, and folding cannot
 * take those below one each.
 */
const FOLD_AT = 256;

/** One value per key of a (project, batch): how many rows it would have once folded. */
const KEY_TEXT = sql<string>`stage_id || ${'\u0001'} || status || ${'\u0001'} || type`;

function gathered(rows: number, keys: number): boolean {
  return rows > keys + FOLD_AT;
}

type FacetColumn = 'stage_id' | 'status' | 'type';

/** Which keys a count sums: a batch ('' for every task) and, per column, the values it takes. */
export interface FacetSelection {
  projectId: string;
  batchId: string;
  /** A column left out takes every value; an empty list matches nothing. */
  values: Partial<Record<FacetColumn, string[]>>;
}

const FIELD_COLUMNS: Record<string, FacetColumn> = { stage: 'stage_id', status: 'status', type: 'type' };

/**
 * The selection a task filter amounts to, when its total can be read from the kept counts:
 * conditions `$eq`/`$in` on stage, status and type only, and at most one batch named by
 * `$eq`/`$in` (a task in two batches would be counted twice over two). Undefined otherwise.
 */
export function facetSelection(f: TaskFilter): FacetSelection | undefined {
  if (f.ownedBy !== undefined || f.taskIds !== undefined) return undefined;
  const values: Partial<Record<FacetColumn, string[]>> = {};
  for (const { field, conditions } of f.columns) {
    const column = FIELD_COLUMNS[field];
    if (!column) return undefined;
    for (const c of conditions) {
      if (c.op !== '$eq' && c.op !== '$in') return undefined;
      const list = Array.isArray(c.value) ? c.value : [c.value];
      // The columns are NOT NULL: a null matches nothing, and numbers never equal their text.
      const strings = list.filter((v): v is string => typeof v === 'string');
      const before = values[column];
      values[column] = before ? before.filter((v) => strings.includes(v)) : [...new Set(strings)];
    }
  }
  let batchId = '';
  if (f.batches.length > 1) return undefined;
  const [batch] = f.batches;
  if (batch) {
    if (batch.op !== '$eq' && batch.op !== '$in') return undefined;
    const list = Array.isArray(batch.value) ? batch.value : [batch.value];
    if (list.length !== 1 || typeof list[0] !== 'string' || list[0] === '') return undefined;
    batchId = list[0];
  }
  return { projectId: f.projectId, batchId, values };
}

function selected(db: Executor, s: FacetSelection) {
  let q = db.selectFrom('task_facets').where('project_id', '=', s.projectId).where('batch_id', '=', s.batchId);
  for (const [column, list] of Object.entries(s.values) as [FacetColumn, string[]][]) q = q.where(column, 'in', list);
  return q;
}

/** The number of live tasks the selection matches. */
export async function facetCount(db: Executor, s: FacetSelection): Promise<number> {
  if (Object.values(s.values).some((list) => !list.length)) return 0;
  const row = await selected(db, s)
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>('live'), eb.lit(0)).as('live'),
      eb.fn.countAll<number>().as('rows'),
      eb.fn.count<number>(KEY_TEXT).distinct().as('keys'),
    ])
    .executeTakeFirstOrThrow();
  if (gathered(Number(row.rows), Number(row.keys))) await foldFacets(db, s.projectId, s.batchId);
  return Number(row.live);
}

/** Live tasks of a project per value of one column, among tasks of the given types (or all). */
export async function facetCountsBy(
  db: Executor,
  projectId: string,
  by: FacetColumn,
  types?: string[],
): Promise<Map<string, number>> {
  const s: FacetSelection = { projectId, batchId: '', values: types ? { type: types } : {} };
  const rows = await selected(db, s)
    .select((eb) => [eb.ref(by).as('value'), eb.fn.sum<number>('live').as('live'), eb.fn.countAll<number>().as('rows')])
    .groupBy(by)
    .execute();
  const total = rows.reduce((n, r) => n + Number(r.rows), 0);
  // Grouped by one column, a group's rows may hold several keys: fold when rows outnumber groups
  // by much, which the deltas of any busy project do quickly.
  if (gathered(total, rows.length)) await foldFacets(db, projectId, '');
  return new Map(rows.filter((r) => Number(r.live) !== 0).map((r) => [r.value, Number(r.live)]));
}

/**
 * Live default tasks (consensus copies left out) per status of each project, for a page of the
 * project list: one grouped read of the kept counts, however many tasks the projects hold.
 */
export async function facetCountsOfProjects(
  db: Executor,
  projectIds: readonly string[],
): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>();
  if (projectIds.length === 0) return out;
  const rows = await db
    .selectFrom('task_facets')
    .select((eb) => ['project_id', 'status', eb.fn.sum<number>('live').as('live')])
    .where('project_id', 'in', projectIds)
    .where('batch_id', '=', '')
    .where('type', '=', 'default')
    .groupBy(['project_id', 'status'])
    .execute();
  for (const r of rows) {
    const counts = out.get(r.project_id) ?? {};
    counts[r.status] = Number(r.live);
    out.set(r.project_id, counts);
  }
  return out;
}

/**
 * PostgreSQL: replaces the rows of a project's batch ('' included) by one per key, in one
 * statement, as foldTaskCount does for the project's count (same reasoning: deltas of writers in
 * flight are invisible and stay; two folds at once delete disjoint rows). SQLite keeps one row
 * per key already.
 */
export async function foldFacets(db: Executor, projectId: string, batchId: string): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    WITH gone AS (
      DELETE FROM task_facets WHERE project_id = ${projectId} AND batch_id = ${batchId}
      RETURNING batch_id, stage_id, status, type, live)
    INSERT INTO task_facets (project_id, batch_id, stage_id, status, type, live)
    SELECT ${projectId}, batch_id, stage_id, status, type, sum(live) FROM gone
    GROUP BY batch_id, stage_id, status, type HAVING sum(live) <> 0`.execute(db);
}

/**
 * PostgreSQL: folds the (project, batch) pairs that have gathered FOLD_AT rows beyond their keys, at most
 * `limit` of them; the job worker calls it now and then so that keys nobody reads stay small.
 * Answers how many it folded.
 */
export async function foldGatheredFacets(db: Executor, limit = 50): Promise<number> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return 0;
  const heavy = await db
    .selectFrom('task_facets')
    .select(['project_id', 'batch_id'])
    .groupBy(['project_id', 'batch_id'])
    .having((eb) => eb(eb.fn.countAll(), '>', sql<number>`count(DISTINCT ${KEY_TEXT}) + ${FOLD_AT}`))
    .limit(limit)
    .execute();
  for (const h of heavy) await foldFacets(db, h.project_id, h.batch_id);
  return heavy.length;
}
