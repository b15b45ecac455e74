import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import type { Executor } from '../db.js';
import type { Database, TaskRow } from '../schema.js';

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

export async function listTasks(
  db: Executor,
  f: TaskFilter,
  page: { offset: number; limit: number; sort: SortField; descending: boolean },
): Promise<{ rows: TaskRow[]; total: number }> {
  const base = applyTaskFilter(db.selectFrom('tasks'), f);
  const dir = page.descending ? 'desc' : 'asc';
  const [rows, count] = await Promise.all([
    base
      .selectAll('tasks')
      .orderBy(`tasks.${SORT_COLUMNS[page.sort]}`, dir)
      .orderBy('tasks.id', dir)
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function findTask(db: Executor, id: string): Promise<TaskRow | undefined> {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
}
