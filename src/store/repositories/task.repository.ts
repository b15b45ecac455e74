import type { Executor } from '../db.js';
import type { TaskRow } from '../schema.js';
import { preparedQuery } from '../prepared-query.js';
import { applyTaskFilter, type TaskFilter } from './task-filter.js';
import { storedTaskCount } from './task-count.repository.js';
import { facetCount, facetSelection } from './task-facet.repository.js';

export {
  applyTaskFilter,
  type Condition,
  FILTER_FIELDS,
  type FilterField,
  FLAG_FIELDS,
  type Operator,
  OPERATORS,
  type TaskFilter,
  TEXT_FIELDS,
} from './task-filter.js';

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

export interface SortKey {
  field: SortField;
  descending: boolean;
}

export interface TaskPage {
  offset: number;
  limit: number;
  /** Sort keys in order; ties of all of them are ordered by task id in the first key's direction. */
  sort: SortKey[];
}

/** No condition beyond the project and `deleted`: the stored count is the total. */
export function isUnfiltered(f: TaskFilter): boolean {
  return !f.columns.length && !f.batches.length && f.ownedBy === undefined && f.taskIds === undefined;
}

/** Counts the filter's rows: what a filtered listing pays for its total. */
export function countQuery(db: Executor, f: TaskFilter) {
  return applyTaskFilter(db.selectFrom('tasks'), f).select((eb) => eb.fn.countAll<number>().as('n'));
}

/**
 * The listing's total: the stored count when unfiltered, the kept counts (migration 012) when
 * the filter names only stages, statuses, types and one batch, else a count of the filter's rows.
 */
export async function countTasks(db: Executor, f: TaskFilter): Promise<number> {
  if (isUnfiltered(f)) return storedTaskCount(db, f.projectId);
  const facets = facetSelection(f);
  if (facets) return facetCount(db, facets);
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
  const dir = (descending: boolean) => (descending === walk.reverse ? 'asc' : 'desc');
  let q = applyTaskFilter(db.selectFrom('tasks'), f).select('tasks.id');
  for (const key of p.sort) q = q.orderBy(`tasks.${SORT_COLUMNS[key.field]}`, dir(key.descending));
  return q
    .orderBy('tasks.id', dir(p.sort[0]?.descending ?? true))
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

/** A task with what its reader needs, from one statement (GET /task/{id}). */
export interface TaskForReader {
  task: TaskRow;
  projectOrgId: string;
  /** The project's stages, as stored (JSON). */
  stages: string;
  /** The reader's project role, when the reader is a member. */
  memberRole: string | undefined;
  asset:
    | {
        id: string;
        external_id: string;
        data: string;
        metadata: string | null;
        dataset: string | null;
        width_bucket: number | null;
        height_bucket: number | null;
      }
    | undefined;
  /** Ids of the asset's batches, in id order. */
  batchIds: string[];
}

const taskForReader = preparedQuery(['id', 'email'], (db, a) =>
  db
    .selectFrom('tasks as t')
    .innerJoin('projects as p', 'p.id', 't.project_id')
    .leftJoin('project_members as m', (join) => join.onRef('m.project_id', '=', 'p.id').on('m.email', '=', a.email))
    .leftJoin('assets as a', 'a.id', 't.asset_id')
    .leftJoin('asset_batches as ab', 'ab.asset_id', 't.asset_id')
    .selectAll('t')
    .select([
      'p.organization_id as project_org_id',
      'p.stages as project_stages',
      'm.role as member_role',
      'a.id as asset_row_id',
      'a.external_id as asset_external_id',
      'a.data as asset_data',
      'a.metadata as asset_metadata',
      'a.dataset as asset_dataset',
      'a.width_bucket as asset_width_bucket',
      'a.height_bucket as asset_height_bucket',
      'ab.batch_id as batch_id',
    ])
    .where('t.id', '=', a.id)
    .where('t.deleted', '=', 0)
    .where('p.deleted', '=', 0),
);

/**
 * The task (not deleted, in a project not deleted) with its project's organization and stages,
 * the member role of `email` in the project, its asset and its batches: one statement, one row
 * per batch of the asset (one row when it has none), where the read used to take four.
 */
export async function findTaskForReader(db: Executor, id: string, email: string): Promise<TaskForReader | undefined> {
  const rows = await taskForReader(db, { id, email });
  const first = rows[0];
  if (!first) return undefined;
  const { project_org_id, project_stages, member_role, asset_row_id, asset_external_id, asset_data } = first;
  const batchIds = rows.flatMap((r) => (r.batch_id === null ? [] : [r.batch_id])).sort();
  return {
    // The row itself, with the joined columns still on it: copying the task's columns out of it
    // (a rest pattern) built a second object of some thirty fields per read. Readers take task
    // columns only.
    task: first,
    projectOrgId: project_org_id,
    stages: project_stages,
    memberRole: member_role ?? undefined,
    asset:
      asset_row_id === null || asset_external_id === null || asset_data === null
        ? undefined
        : {
            id: asset_row_id,
            external_id: asset_external_id,
            data: asset_data,
            metadata: first.asset_metadata,
            dataset: first.asset_dataset,
            width_bucket: first.asset_width_bucket,
            height_bucket: first.asset_height_bucket,
          },
    batchIds,
  };
}

export async function findTask(db: Executor, id: string): Promise<TaskRow | undefined> {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
}
