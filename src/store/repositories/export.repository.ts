import { sql } from 'kysely';
import type { Executor } from '../db.js';
import { assetInBatches } from './in-batches.js';

/*
 * The reads of an export, one page at a time. Pages follow (created_at, id) with keyset
 * pagination: each page starts after the last row of the previous one, so a page costs the same
 * at the start and at the end of a million rows, and a task is seen once even if it changes
 * while the export runs (created_at never changes).
 */

/** Bounds on an ISO time column; values are ISO strings, which compare as text. */
export interface TimeRange {
  $gt?: string;
  $gte?: string;
  $lt?: string;
  $lte?: string;
}

export interface Cursor {
  createdAt: string;
  id: string;
}

export interface TaskExportFilter {
  projectId: string;
  stageIds?: string[] | undefined;
  batchIds?: string[] | undefined;
  status?: string | undefined;
  createdAt?: TimeRange | undefined;
  updatedAt?: TimeRange | undefined;
  /** Task types (default, consensus, benchmark); undefined = default tasks only. */
  taskTypes?: readonly string[] | undefined;
}

const RANGE_OPS = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

/** The bounds of a range as [operator, value] pairs. */
function bounds(range: TimeRange | undefined): [(typeof RANGE_OPS)[keyof TimeRange], string][] {
  return (Object.keys(RANGE_OPS) as (keyof TimeRange)[])
    .filter((op) => range?.[op] !== undefined)
    .map((op) => [RANGE_OPS[op], range?.[op] as string]);
}

/** The project's tasks of the filter's types (default ones only unless told), after the cursor, in page order. */
function exportTasks(db: Executor, f: TaskExportFilter, after: Cursor | undefined) {
  let q = db
    .selectFrom('tasks as t')
    .innerJoin('assets as a', 'a.id', 't.asset_id')
    .where('t.project_id', '=', f.projectId)
    .where('t.deleted', '=', 0)
    .where('t.type', 'in', f.taskTypes?.length ? [...f.taskTypes] : ['default']);
  if (f.stageIds) q = q.where('t.stage_id', 'in', f.stageIds.length ? f.stageIds : ['']);
  if (f.status !== undefined) q = q.where('t.status', '=', f.status);
  for (const [op, value] of bounds(f.createdAt)) q = q.where('t.created_at', op, value);
  for (const [op, value] of bounds(f.updatedAt)) q = q.where('t.updated_at', op, value);
  const batchIds = f.batchIds;
  if (batchIds) {
    q = q.where(assetInBatches('t.asset_id', batchIds));
  }
  if (after) {
    q = q.where((eb) => eb(eb.refTuple('t.created_at', 't.id'), '>', eb.tuple(after.createdAt, after.id)));
  }
  return q.orderBy('t.created_at').orderBy('t.id');
}

/*
 * octet_length reads a value's stored length, not the value: SQLite (3.43+) takes it from the
 * record header, PostgreSQL from the varlena or TOAST header (a large value is not fetched).
 */
const TASK_BYTES = sql<number>`octet_length(t.answer) + coalesce(octet_length(t.brush_data_url), 0)
  + coalesce(octet_length(t.brush_frames), 0)
  + octet_length(a.data) + coalesce(octet_length(a.metadata), 0) + coalesce(octet_length(a.context_data), 0)
  + coalesce(octet_length(a.dataset), 0)`;
const HISTORY_BYTES = sql<number>`(select coalesce(sum(octet_length(h.answer)), 0) from task_history h where h.task_id = t.id)`;

/** At most `tasks` tasks, and at most `bytes` of stored text (answers, history answers, asset text). */
export interface PageLimits {
  tasks: number;
  bytes: number;
}

/**
 * The next page of tasks after the cursor, with the asset fields of an item: of the next
 * `limits.tasks` tasks, those whose stored bytes (with their history's answers, when asked) add
 * up to `limits.bytes`, and always the first. The running total is a window over those
 * candidates only; the database reads a candidate past the budget but never sends it.
 * `candidates` counts them: fewer than `limits.tasks`, all of them returned, is the last page.
 */
export async function taskPage(
  db: Executor,
  f: TaskExportFilter,
  after: Cursor | undefined,
  limits: PageLimits,
  withHistory: boolean,
) {
  const bytes = withHistory ? sql<number>`${TASK_BYTES} + ${HISTORY_BYTES}` : TASK_BYTES;
  const candidates = exportTasks(db, f, after)
    .select([
      't.id',
      't.asset_id',
      't.external_id',
      't.stage_id',
      't.answer',
      't.brush_data_url',
      't.brush_frames',
      't.medical_brush_data_url',
      't.total_duration',
      't.consensus_score',
      't.type',
      't.parent_task_id',
      // A copy's score is its parent's: the agreement of all the copies.
      (eb) =>
        eb
          .selectFrom('tasks as parent')
          .select('parent.consensus_score')
          .whereRef('parent.id', '=', 't.parent_task_id')
          .$asScalar()
          .as('parent_score'),
      't.updated_at',
      't.updated_by',
      't.created_at',
      'a.data',
      'a.context_data',
      'a.metadata',
      'a.dataset',
      bytes.as('bytes'),
    ])
    .limit(limits.tasks);
  const totals = db
    .selectFrom(candidates.as('c'))
    .selectAll('c')
    .select([
      sql<number>`sum(c.bytes) over (order by c.created_at, c.id rows unbounded preceding)`.as('upto'),
      sql<number>`count(*) over ()`.as('candidates'),
    ]);
  return db
    .selectFrom(totals.as('p'))
    .selectAll('p')
    .where((eb) => eb.or([eb('p.upto', '<=', limits.bytes), eb('p.upto', '=', eb.ref('p.bytes'))]))
    .orderBy('p.created_at')
    .orderBy('p.id')
    .execute();
}

export type TaskPageRow = Awaited<ReturnType<typeof taskPage>>[number];

/** Batch names of each asset, by name. */
export async function batchNamesOf(db: Executor, assetIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (!assetIds.length) return out;
  const rows = await db
    .selectFrom('asset_batches as ab')
    .innerJoin('batches as b', 'b.id', 'ab.batch_id')
    .select(['ab.asset_id', 'b.name'])
    .where('ab.asset_id', 'in', assetIds)
    .orderBy('ab.asset_id')
    .orderBy('b.name')
    .execute();
  for (const r of rows) {
    const list = out.get(r.asset_id);
    if (list) list.push(r.name);
    else out.set(r.asset_id, [r.name]);
  }
  return out;
}

/** History entries of each task, oldest first. */
export async function historyOf(db: Executor, taskIds: readonly string[]) {
  const out = new Map<string, HistoryPageRow[]>();
  if (!taskIds.length) return out;
  const rows = await db
    .selectFrom('task_history')
    .select([
      'id',
      'task_id',
      'stage_id',
      'stage_name',
      'answer',
      'duration',
      'completed_at',
      'completed_by',
      'review_status',
      'is_skipped',
      'consensus_id',
    ])
    .where('task_id', 'in', taskIds)
    .orderBy('task_id')
    .orderBy('completed_at')
    .orderBy('id')
    .execute();
  for (const r of rows) {
    const list = out.get(r.task_id);
    if (list) list.push(r);
    else out.set(r.task_id, [r]);
  }
  return out;
}

export interface HistoryPageRow {
  id: string;
  task_id: string;
  stage_id: string;
  stage_name: string;
  answer: string;
  duration: number;
  completed_at: string;
  completed_by: string | null;
  review_status: string | null;
  is_skipped: number;
  consensus_id: string | null;
}

export interface IssueExportFilter {
  projectId: string;
  status?: string | undefined;
  createdAt?: TimeRange | undefined;
  updatedAt?: TimeRange | undefined;
}

/** One page of the project's issues, with the external id of their asset. */
export async function issuePage(db: Executor, f: IssueExportFilter, after: Cursor | undefined, limit: number) {
  let q = db
    .selectFrom('issues as i')
    .leftJoin('assets as a', 'a.id', 'i.asset_id')
    .selectAll('i')
    .select('a.external_id')
    .where('i.project_id', '=', f.projectId)
    .where('i.deleted', '=', 0);
  if (f.status !== undefined) q = q.where('i.status', '=', f.status);
  for (const [op, value] of bounds(f.createdAt)) q = q.where('i.created_at', op, value);
  for (const [op, value] of bounds(f.updatedAt)) q = q.where('i.updated_at', op, value);
  if (after) {
    q = q.where((eb) => eb(eb.refTuple('i.created_at', 'i.id'), '>', eb.tuple(after.createdAt, after.id)));
  }
  return q.orderBy('i.created_at').orderBy('i.id').limit(limit).execute();
}

export type IssuePageRow = Awaited<ReturnType<typeof issuePage>>[number];
