import { type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Engine } from '../db.js';
import type { Database } from '../schema.js';
import { assetInBatches } from './in-batches.js';

/**
 * The conditions of task listings (`filter`, DECISIONS section 4 and the [client] additions):
 * stored columns, the asset's creator, and three flags, with comparison operators, `$regex`
 * and `$exists`.
 */

export type Operator = '$eq' | '$ne' | '$in' | '$nin' | '$gt' | '$gte' | '$lt' | '$lte' | '$regex' | '$exists';
export const OPERATORS: readonly Operator[] = [
  '$eq',
  '$ne',
  '$in',
  '$nin',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$regex',
  '$exists',
];

type Scalar = string | number | null;

export type Condition =
  | { op: Exclude<Operator, '$regex' | '$exists'>; value: Scalar | Scalar[] }
  | { op: '$exists'; value: boolean }
  /** `prefix`: the pattern is `^` and a literal, matched on an index range instead. */
  | { op: '$regex'; value: string; ignoreCase: boolean; prefix: string | undefined; engine: Engine };

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
  updatedBy: 'updated_by',
  duration: 'duration',
  totalDuration: 'total_duration',
  openIssuesCount: 'open_issues_count',
  type: 'type',
} as const;

/** Yes/no facts of a task; conditions on them hold `1` (true) or `0` (false). */
export const FLAG_FIELDS = ['isDraft', 'isSkipped', 'isBenchmark'] as const;
export type FlagField = (typeof FLAG_FIELDS)[number];
/** Fields whose values are text: the only ones `$regex` applies to. */
export const TEXT_FIELDS = [
  'stage',
  'status',
  'reviewStatus',
  'assignee',
  'externalId',
  'updatedBy',
  'type',
  'createdBy',
] as const;

export type FilterField = keyof typeof FILTER_COLUMNS | 'createdBy' | FlagField;
export const FILTER_FIELDS: readonly FilterField[] = [
  ...(Object.keys(FILTER_COLUMNS) as (keyof typeof FILTER_COLUMNS)[]),
  'createdBy',
  ...FLAG_FIELDS,
];

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
/** Above every character: `prefix + TOP` bounds the range of strings that start with prefix. */
const TOP = '\u{10FFFF}';

/** A flag as a condition that holds when the flag is set. */
function flagHolds(eb: TaskEB, field: FlagField): Expression<SqlBool> {
  if (field === 'isDraft') return eb('tasks.is_draft', '=', 1);
  if (field === 'isBenchmark') return eb('tasks.type', '=', 'benchmark');
  return eb.exists(
    eb
      .selectFrom('task_history as h')
      .select('h.id')
      .whereRef('h.task_id', '=', 'tasks.id')
      .where('h.is_skipped', '=', 1),
  );
}

/** The value a field's conditions compare: a column of the task, or its asset's creator. */
function valueOf(eb: TaskEB, field: Exclude<FilterField, FlagField>): Expression<Scalar> {
  if (field === 'createdBy') {
    return eb.selectFrom('assets').select('assets.created_by').whereRef('assets.id', '=', 'tasks.asset_id').$asScalar();
  }
  return eb.ref(`tasks.${FILTER_COLUMNS[field]}`);
}

function regexCondition(eb: TaskEB, value: Expression<Scalar>, c: Extract<Condition, { op: '$regex' }>) {
  if (c.prefix !== undefined) {
    // A range an index can serve, and the exact test (substr counts characters on both engines).
    return eb.and([
      eb(value, '>=', c.prefix),
      eb(value, '<', c.prefix + TOP),
      eb(eb.fn('substr', [value, eb.val(1), eb.val(c.prefix.length)]), '=', c.prefix),
    ]);
  }
  if (c.engine === 'postgres') return eb(value, c.ignoreCase ? '~*' : '~', c.value);
  return eb(sql<number>`annotary_regexp(${c.value}, ${c.ignoreCase ? 'i' : ''}, ${value})`, '=', 1);
}

function fieldCondition(eb: TaskEB, field: FilterField, c: Condition): Expression<SqlBool> {
  if ((FLAG_FIELDS as readonly string[]).includes(field)) {
    const holds = flagHolds(eb, field as FlagField);
    // A flag always has a value: $exists true matches every task.
    if (c.op === '$exists') return c.value ? eb.val(true) : eb.not(eb.val(true));
    const wanted = c.op === '$eq' ? c.value === 1 : c.value !== 1;
    return wanted ? holds : eb.not(holds);
  }
  const value = valueOf(eb, field as Exclude<FilterField, FlagField>);
  if (c.op === '$exists') return c.value ? eb(value, 'is not', null) : eb(value, 'is', null);
  if (c.op === '$regex') return regexCondition(eb, value, c);
  if (c.op === '$in' || c.op === '$nin') {
    const all = Array.isArray(c.value) ? c.value : [c.value];
    const values = all.filter((v) => v !== null);
    const withNull = values.length < all.length;
    const parts: Expression<SqlBool>[] = [];
    if (values.length) parts.push(eb(value, c.op === '$in' ? 'in' : 'not in', values));
    if (withNull) parts.push(eb(value, c.op === '$in' ? 'is' : 'is not', null));
    // An empty list matches nothing ($in) or everything ($nin).
    if (!parts.length) return c.op === '$in' ? eb(eb.val(1), '=', 0) : eb(eb.val(1), '=', 1);
    return c.op === '$in' ? eb.or(parts) : eb.and(parts);
  }
  if (c.value === null) return c.op === '$ne' ? eb(value, 'is not', null) : eb(value, 'is', null);
  const one = Array.isArray(c.value) ? (c.value[0] ?? null) : c.value;
  return eb(value, SQL_OPS[c.op], one);
}

function batchCondition(eb: TaskEB, c: Condition) {
  const list = Array.isArray(c.value) ? c.value : [c.value];
  const values = list.filter((v): v is string => typeof v === 'string');
  const member = assetInBatches('tasks.asset_id', values);
  return c.op === '$ne' || c.op === '$nin' ? eb.not(member) : member;
}

export function applyTaskFilter(qb: TaskQB, f: TaskFilter): TaskQB {
  let q = qb.where('tasks.project_id', '=', f.projectId).where('tasks.deleted', '=', 0);
  for (const { field, conditions } of f.columns) {
    for (const c of conditions) q = q.where((eb) => fieldCondition(eb, field, c));
  }
  for (const c of f.batches) q = q.where((eb) => batchCondition(eb, c));
  if (f.ownedBy !== undefined) q = q.where('tasks.assignee', '=', f.ownedBy);
  if (f.taskIds !== undefined) q = q.where('tasks.id', 'in', f.taskIds.length ? f.taskIds : ['']);
  return q;
}
