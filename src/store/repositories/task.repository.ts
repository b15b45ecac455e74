import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import type { Executor } from '../db.js';
import type { Database, TaskRow } from '../schema.js';
import { storedTaskCount } from './task-count.repository.js';

export type Operator = '$eq' | '$ne' | '$in' | '$nin' | '$gt' | '$gte' | '$lt' | '$lte';
export const OPERATORS: readonly Operator[] = ['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte'];

export interface Condition {
  op: Operator;
  value: string | number | null | (string | number | null)[];
}

/** Columns a task filter may name, by their API name. */
export const FILTER_COLUMNS = {
  stage: 'stage_id',
  status: 'status',
  reviewStatus: 'review_status',
  assignee: 'assignee',
  externalId: 'external_id',
  priority: 'priority',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  type: 'type',
} as const;
export type FilterField = keyof typeof FILTER_COLUMNS;

export interface TaskFilter {
  projectId: string;
  columns: { field: FilterField; conditions: Condition[] }[];
  /** Conditions on the task's batches: $eq/$in = in any of, $ne/$nin = in none of. */
  batches: Condition[];
  /** Only tasks this e-mail may see as "own" (Labelers). */
  ownedBy?: string | undefined;
  /** Only these task ids. */
  taskIds?: string[] | undefined;
}

type TaskQB = SelectQueryBuilder<Database, 'tasks', object>;
type TaskEB = ExpressionBuilder<Database, 'tasks'>;

const SQL_OPS = { $eq: '=', $ne: '<>', $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

function columnCondition(eb: TaskEB, column: (typeof FILTER_COLUMNS)[FilterField], c: Condition) {
  const ref = eb.ref(`tasks.${column}`);
  if (c.op === '$in' || c.op === '$nin') {
    const values = (Array.isArray(c.value) ? c.value : [c.value]).filter((v) => v !== null);
    // An empty list matches nothing ($in) or everything ($nin).
    if (values.length === 0) return c.op === '$in' ? eb(eb.val(1), '=', 0) : eb(eb.val(1), '=', 1);
    return eb(ref, c.op === '$in' ? 'in' : 'not in', values);
  }
  if (c.value === null) return c.op === '$ne' ? eb(ref, 'is not', null) : eb(ref, 'is', null);
  const value = Array.isArray(c.value) ? (c.value[0] ?? null) : c.value;
  return eb(ref, SQL_OPS[c.op], value);
}

function batchCondition(eb: TaskEB, c: Condition) {
  const values = (Array.isArray(c.value) ? c.value : [c.value]).filter((v): v is string => typeof v === 'string');
  const member = eb.exists(
    eb
      .selectFrom('asset_batches as ab')
      .select('ab.asset_id')
      .whereRef('ab.asset_id', '=', 'tasks.asset_id')
      .where('ab.batch_id', 'in', values.length ? values : ['']),
  );
  return c.op === '$ne' || c.op === '$nin' ? eb.not(member) : member;
}

export function applyTaskFilter(qb: TaskQB, f: TaskFilter): TaskQB {
  let q = qb.where('tasks.project_id', '=', f.projectId).where('tasks.deleted', '=', 0);
  for (const { field, conditions } of f.columns) {
    for (const c of conditions) q = q.where((eb) => columnCondition(eb, FILTER_COLUMNS[field], c));
  }
  for (const c of f.batches) q = q.where((eb) => batchCondition(eb, c));
  if (f.ownedBy !== undefined) q = q.where('tasks.assignee', '=', f.ownedBy);
  if (f.taskIds !== undefined) q = q.where('tasks.id', 'in', f.taskIds.length ? f.taskIds : ['']);
  return q;
}

export const SORT_COLUMNS = {
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  priority: 'priority',
  externalId: 'external_id',
  status: 'status',
  stage: 'stage_id',
  completedAt: 'completed_at',
} as const;
export type SortField = keyof typeof SORT_COLUMNS;

export interface TaskPage {
  offset: number;
  limit: number;
  sort: SortField;
  descending: boolean;
}

/** No condition beyond the project and `deleted`: the stored count is the total. */
export function isUnfiltered(f: TaskFilter): boolean {
  return !f.columns.length && !f.batches.length && f.ownedBy === undefined && f.taskIds === undefined;
}

/** Counts the filter's rows: what a filtered listing pays for its total. */
export function countQuery(db: Executor, f: TaskFilter) {
  return applyTaskFilter(db.selectFrom('tasks'), f).select((eb) => eb.fn.countAll<number>().as('n'));
}

/** The listing's total: the stored count when unfiltered, else a count of the filter's rows. */
export async function countTasks(db: Executor, f: TaskFilter): Promise<number> {
  if (isUnfiltered(f)) return storedTaskCount(db, f.projectId);
  return Number((await countQuery(db, f).executeTakeFirstOrThrow()).n);
}

/** Where a page's walk starts: `reverse` walks the opposite order and takes the mirror slice. */
export interface PageWalk {
  offset: number;
  limit: number;
  reverse: boolean;
}

/**
 * The walk of a page once the total is known (undefined: past the end), from the nearer end:
 * page 990 of 1,000 then skips 10,000 entries, not 989,000.
 */
export function pageWalk(total: number, p: TaskPage): PageWalk | undefined {
  if (p.offset >= total) return undefined;
  const limit = Math.min(p.limit, total - p.offset);
  const fromEnd = total - p.offset - limit;
  return fromEnd < p.offset ? { offset: fromEnd, limit, reverse: true } : { offset: p.offset, limit, reverse: false };
}

/**
 * The ids of a page in the order (sort column, id), both in the walk's direction. Only the
 * index is read for createdAt, so OFFSET skips index entries, not whole rows. A reverse walk
 * reverses both keys, which reverses the whole order on either engine, NULLs included (each
 * engine keeps its own NULL placement: SQLite sorts NULL lowest, PostgreSQL highest).
 */
export function pageIdsQuery(db: Executor, f: TaskFilter, p: TaskPage, walk: PageWalk) {
  const dir = p.descending === walk.reverse ? 'asc' : 'desc';
  return applyTaskFilter(db.selectFrom('tasks'), f)
    .select('tasks.id')
    .orderBy(`tasks.${SORT_COLUMNS[p.sort]}`, dir)
    .orderBy('tasks.id', dir)
    .offset(walk.offset)
    .limit(walk.limit);
}

export function rowsQuery(db: Executor, ids: string[]) {
  return db.selectFrom('tasks').selectAll().where('id', 'in', ids);
}

/**
 * The rows of a page: its ids first, then the rows of just those ids, put in the ids' order.
 * Two statements rather than a join because PostgreSQL's planner may join the ids to a
 * sequential scan of every task (it did at 100,000 small rows); a list of ids always takes the
 * primary key.
 */
export async function pageRows(db: Executor, f: TaskFilter, p: TaskPage, walk: PageWalk): Promise<TaskRow[]> {
  const ids = (await pageIdsQuery(db, f, p, walk).execute()).map((r) => r.id);
  if (walk.reverse) ids.reverse();
  if (!ids.length) return [];
  const rows = await rowsQuery(db, ids).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is TaskRow => r !== undefined);
}

/** A page of a task listing and the listing's total. */
export async function listTasks(db: Executor, f: TaskFilter, p: TaskPage): Promise<{ rows: TaskRow[]; total: number }> {
  if (p.offset === 0 && !isUnfiltered(f)) {
    // The first page needs no total to choose its walk: count and read side by side.
    const [rows, total] = await Promise.all([
      pageRows(db, f, p, { offset: 0, limit: p.limit, reverse: false }),
      countTasks(db, f),
    ]);
    return { rows, total };
  }
  const total = await countTasks(db, f);
  const walk = pageWalk(total, p);
  return { rows: walk ? await pageRows(db, f, p, walk) : [], total };
}

export async function findTask(db: Executor, id: string): Promise<TaskRow | undefined> {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
}
