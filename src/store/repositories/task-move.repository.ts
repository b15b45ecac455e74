import type { Executor } from '../db.js';
import type { TaskRow } from '../schema.js';
import { chunked } from '../chunks.js';
import { idList, inIdList, type PreparedValue, preparedQuery } from '../prepared-query.js';
import { assetInBatches } from './in-batches.js';

/*
 * Writing moved tasks: one task's row after a move, many tasks moved together by the columns
 * they changed, and the rows a bulk move picks.
 */

export interface TaskPick {
  taskIds?: string[] | undefined;
  externalIds?: string[] | undefined;
  assetIds?: string[] | undefined;
  batchIds?: string[] | undefined;
  fromStageIds?: string[] | undefined;
  /** Consensus copies too (else only the project's own tasks). */
  includeCopies: boolean;
}

const nonEmpty = (list: string[]) => (list.length ? list : ['']);

/** The ids of the project's live tasks that match every given list, oldest first; no list means all. */
export async function pickTaskIds(trx: Executor, projectId: string, f: TaskPick): Promise<string[]> {
  let q = trx.selectFrom('tasks').select('id').where('project_id', '=', projectId).where('deleted', '=', 0);
  if (f.taskIds) q = q.where('id', 'in', nonEmpty(f.taskIds));
  if (f.externalIds) q = q.where('external_id', 'in', nonEmpty(f.externalIds));
  if (f.assetIds) q = q.where('asset_id', 'in', nonEmpty(f.assetIds));
  if (f.fromStageIds) q = q.where('stage_id', 'in', nonEmpty(f.fromStageIds));
  const batchIds = f.batchIds;
  if (batchIds) {
    q = q.where(assetInBatches('tasks.asset_id', batchIds));
  }
  if (!f.includeCopies) q = q.where('type', '=', 'default');
  return (await q.orderBy('created_at').orderBy('id').execute()).map((r) => r.id);
}

/** The rows of these tasks, oldest first. */
export async function tasksByIds(trx: Executor, ids: string[]): Promise<TaskRow[]> {
  const rows: TaskRow[] = [];
  for (const part of chunked(ids, 1000)) {
    rows.push(
      ...(await trx
        .selectFrom('tasks')
        .selectAll()
        .where('id', 'in', part)
        .orderBy('created_at')
        .orderBy('id')
        .execute()),
    );
  }
  return rows;
}

/** Drops the history entries of these tasks. */
export async function deleteHistoryOf(trx: Executor, taskIds: string[]): Promise<void> {
  await trx.deleteFrom('task_history').where('task_id', 'in', taskIds).execute();
}

/** Sets the priority of these tasks. */
export async function setPriority(
  trx: Executor,
  ids: string[],
  change: { priority: number; now: string; by: string },
): Promise<void> {
  for (const part of chunked(ids)) {
    await trx
      .updateTable('tasks')
      .set({ priority: change.priority, updated_at: change.now, updated_by: change.by })
      .where('id', 'in', part)
      .execute();
  }
}

/** A task row to write; `before` is the row as read in this transaction, when the caller has it. */
export interface TaskWrite {
  before?: TaskRow | undefined;
  after: TaskRow;
}

/**
 * The one way a task row is written after routing or a person changed it. With `before`, only
 * the columns that differ are written; without it, every column but the id. Tasks whose changes
 * are the same (tasks moved together by one operation mostly are) share one UPDATE, instead of
 * a full-row UPDATE per task that rewrote every index entry of the row.
 */
export async function saveTasks(trx: Executor, writes: readonly TaskWrite[]): Promise<void> {
  const groups = new Map<string, { set: Partial<TaskRow>; ids: string[] }>();
  for (const { before, after } of writes) {
    const set: Record<string, unknown> = {};
    for (const key of Object.keys(after) as (keyof TaskRow)[]) {
      if (key !== 'id' && (before === undefined || after[key] !== before[key])) set[key] = after[key];
    }
    const key = JSON.stringify(set);
    const group = groups.get(key);
    if (group) group.ids.push(after.id);
    else if (key !== '{}') groups.set(key, { set: set as Partial<TaskRow>, ids: [after.id] });
  }
  for (const { set, ids } of groups.values()) {
    const columns = Object.keys(set) as (keyof TaskRow)[];
    const update = taskUpdate(columns);
    const values: Record<string, PreparedValue> = {};
    for (const c of columns) values[c] = set[c] ?? null;
    for (const part of chunked(ids)) await update(trx, { ...values, [IDS]: idList(trx, part) });
  }
}

/** The argument of the moved tasks' ids (no column has this name). */
const IDS = '$ids';
/** Compiled UPDATEs of moved tasks kept, by the columns they change (routing changes a few sets). */
const TASK_UPDATES = 64;
const taskUpdates = new Map<string, ReturnType<typeof compileTaskUpdate>>();

function compileTaskUpdate(columns: readonly string[]) {
  return preparedQuery([...columns, IDS], (db, a) =>
    db
      .updateTable('tasks')
      .set(Object.fromEntries(columns.map((c) => [c, a[c]])) as Partial<TaskRow>)
      .where(inIdList(db, 'id', a[IDS] as string)),
  );
}

/** The UPDATE of moved tasks that changes `columns`, compiled once: tasks move in every group of deliveries. */
function taskUpdate(columns: readonly string[]) {
  const key = columns.join('\u0000');
  let update = taskUpdates.get(key);
  if (!update) {
    update = compileTaskUpdate(columns);
    if (taskUpdates.size >= TASK_UPDATES) {
      const oldest = taskUpdates.keys().next().value;
      if (oldest !== undefined) taskUpdates.delete(oldest);
    }
    taskUpdates.set(key, update);
  }
  return update;
}
