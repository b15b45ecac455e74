import { sql } from 'kysely';
import type { Executor } from '../db.js';
import { engineOf, idList, inIdList, preparedQuery } from '../prepared-query.js';
import type { ProjectRow, TaskRow } from '../schema.js';

/** The task columns a delivery reads: its visit, and what the payload carries. */
export const TASK_COLUMNS = [
  'id',
  'project_id',
  'asset_id',
  'external_id',
  'stage_id',
  'stage_entered_at',
  'deleted',
  'type',
  'updated_at',
  'updated_by',
  'duration',
  'total_duration',
  'answer',
  'brush_data_url',
  'brush_frames',
  'medical_brush_data_url',
] as const;

export type DeliveryTask = Pick<TaskRow, (typeof TASK_COLUMNS)[number]>;

/** The history columns a delivery carries (no answers). */
export const HISTORY_META = [
  'id',
  'task_id',
  'stage_id',
  'duration',
  'completed_at',
  'completed_by',
  'is_skipped',
  'consensus_id',
  'trigger',
] as const;

export interface HistoryMeta {
  id: string;
  task_id: string;
  stage_id: string;
  duration: number;
  completed_at: string;
  completed_by: string | null;
  is_skipped: number;
  consensus_id: string | null;
  trigger: string;
}

export interface SubjectAsset {
  id: string;
  external_id: string;
  data: string;
  metadata: string | null;
  dataset: string | null;
}

/** The rows the payloads of a group of deliveries are built from. */
export interface SubjectRows {
  tasks: DeliveryTask[];
  /** The projects of the tasks (on PostgreSQL, of deleted ones too). */
  projects: ProjectRow[];
  assetById: Map<string, SubjectAsset>;
  /** An asset's batches, by asset id, in creation order. */
  batchesOf: Map<string, { id: string; name: string }[]>;
  /** A task's history entries (metadata only), by task id, oldest first. */
  historyOf: Map<string, HistoryMeta[]>;
}

/**
 * Reads the tasks `ids` and what their payloads need. Every group of deliveries runs this, so
 * each statement is compiled once and takes its list of ids as one parameter. SQLite answers
 * in the process: one statement per table. PostgreSQL answers over the network: two statements
 * at once, one round trip (they were five in two round trips, on up to four connections).
 */
export function readSubjectRows(db: Executor, ids: readonly string[]): Promise<SubjectRows> {
  return engineOf(db) === 'postgres' ? readOnPostgres(db, ids) : readOnSqlite(db, ids);
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const list = map.get(key(row));
    if (list) list.push(row);
    else map.set(key(row), [row]);
  }
  return map;
}

const taskRows = preparedQuery(['ids'], (db, a) =>
  // Named columns, not all: a row costs by the column in the driver, and this runs per delivery.
  db
    .selectFrom('tasks')
    .select(TASK_COLUMNS)
    .where(inIdList(db, 'id', a.ids)),
);
const projectRows = preparedQuery(['ids'], (db, a) =>
  db
    .selectFrom('projects')
    .selectAll()
    .where(inIdList(db, 'id', a.ids)),
);
const assetRows = preparedQuery(['ids'], (db, a) =>
  db
    .selectFrom('assets')
    .select(['id', 'external_id', 'data', 'metadata', 'dataset'])
    .where(inIdList(db, 'id', a.ids)),
);
const batchRows = preparedQuery(['ids'], (db, a) =>
  db
    .selectFrom('asset_batches as ab')
    .innerJoin('batches as b', 'b.id', 'ab.batch_id')
    .select(['ab.asset_id', 'b.id', 'b.name'])
    .where(inIdList(db, 'ab.asset_id', a.ids))
    .orderBy('b.created_at')
    .orderBy('b.id'),
);
const historyRows = preparedQuery(['ids'], (db, a) =>
  db
    .selectFrom('task_history')
    // Metadata only: the payload's stage history carries no label contents.
    .select([...HISTORY_META])
    .where(inIdList(db, 'task_id', a.ids))
    .orderBy('completed_at')
    .orderBy('id'),
);

async function readOnSqlite(db: Executor, ids: readonly string[]): Promise<SubjectRows> {
  const tasks = await taskRows(db, { ids: idList(db, ids) });
  const live = tasks.filter((t) => t.deleted === 0);
  const assetIds = idList(db, [...new Set(live.map((t) => t.asset_id))]);
  const projects = await projectRows(db, { ids: idList(db, [...new Set(live.map((t) => t.project_id))]) });
  const assets = await assetRows(db, { ids: assetIds });
  const links = await batchRows(db, { ids: assetIds });
  const history = await historyRows(db, {
    ids: idList(
      db,
      live.map((t) => t.id),
    ),
  });
  const batchesOf = new Map<string, { id: string; name: string }[]>();
  for (const [assetId, list] of groupBy(links, (l) => l.asset_id)) {
    batchesOf.set(
      assetId,
      list.map((b) => ({ id: b.id, name: b.name })),
    );
  }
  return {
    tasks,
    projects,
    assetById: new Map(assets.map((x) => [x.id, x])),
    batchesOf,
    historyOf: groupBy(history, (h) => h.task_id),
  };
}

/** A task with its asset, its asset's batches and its history, in one row (PostgreSQL). */
type TaskWithSubject = DeliveryTask & {
  subject_asset: SubjectAsset | null;
  subject_batches: { id: string; name: string }[];
  subject_history: HistoryMeta[];
};

const jsonObject = (alias: string, columns: readonly string[]) =>
  `json_build_object(${columns.map((c) => `'${c}', ${alias}."${c}"`).join(', ')})`;

// Each task row carries its asset, batches and history as JSON built by PostgreSQL.
const tasksWithSubjects = preparedQuery(['ids'], (db, a) => {
  const query = sql<TaskWithSubject>`SELECT ${sql.raw(TASK_COLUMNS.map((c) => `t."${c}"`).join(', '))},
      (SELECT ${sql.raw(jsonObject('x', ['id', 'external_id', 'data', 'metadata', 'dataset']))}
         FROM assets x WHERE x.id = t.asset_id) AS subject_asset,
      (SELECT coalesce(json_agg(json_build_object('id', b.id, 'name', b.name) ORDER BY b.created_at, b.id), '[]')
         FROM asset_batches ab JOIN batches b ON b.id = ab.batch_id WHERE ab.asset_id = t.asset_id) AS subject_batches,
      (SELECT coalesce(json_agg(${sql.raw(jsonObject('h', HISTORY_META))} ORDER BY h.completed_at, h.id), '[]')
         FROM task_history h WHERE h.task_id = t.id) AS subject_history
    FROM tasks t WHERE ${inIdList(db, 't.id', a.ids)}`;
  return { compile: () => query.compile(db) };
});
/**
 * The projects of the tasks, deleted ones included (an unused project costs nothing): the tasks
 * are found by their key alone. With `deleted = $2` beside it, a planner whose statistics were
 * taken before an import (a fresh table, autovacuum not yet by) read every live task through an
 * index on `deleted` to find a group's dozen, about 3 ms a group at 2,500 tasks and growing.
 */
const projectsOfTasks = preparedQuery(['ids'], (db, a) =>
  db
    .selectFrom('projects')
    .selectAll()
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('tasks as t')
        .select('t.project_id')
        .where(inIdList(db, 't.id', a.ids)),
    ),
);

async function readOnPostgres(db: Executor, ids: readonly string[]): Promise<SubjectRows> {
  const list = idList(db, ids);
  const [rows, projects] = await Promise.all([
    tasksWithSubjects(db, { ids: list }),
    projectsOfTasks(db, { ids: list }),
  ]);
  const out: SubjectRows = { tasks: [], projects, assetById: new Map(), batchesOf: new Map(), historyOf: new Map() };
  for (const { subject_asset: asset, subject_batches: batches, subject_history: history, ...task } of rows) {
    out.tasks.push(task);
    if (task.deleted !== 0) continue;
    if (asset) {
      out.assetById.set(asset.id, asset);
      out.batchesOf.set(asset.id, batches);
    }
    if (history.length > 0) out.historyOf.set(task.id, history);
  }
  return out;
}
