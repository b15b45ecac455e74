import type { Executor } from '../db.js';
import type { TaskHistoryRow } from '../schema.js';

/** A task's history entries, oldest first. */
export function historyOfTask(db: Executor, taskId: string): Promise<TaskHistoryRow[]> {
  return db
    .selectFrom('task_history')
    .selectAll()
    .where('task_id', '=', taskId)
    .orderBy('completed_at')
    .orderBy('id')
    .execute();
}

/** One history entry by its id. */
export function findHistoryEntry(db: Executor, id: string): Promise<TaskHistoryRow | undefined> {
  return db.selectFrom('task_history').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The asset fields a task's view shows, for these assets. */
export function assetBriefs(db: Executor, assetIds: readonly string[]) {
  return db
    .selectFrom('assets')
    .select(['id', 'external_id', 'data', 'metadata', 'dataset', 'width_bucket', 'height_bucket'])
    .where('id', 'in', assetIds)
    .execute();
}
