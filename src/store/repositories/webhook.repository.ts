import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../db.js';
import { engineOf, idList, inIdList, preparedQuery } from '../prepared-query.js';
import type { TaskRow, WebhookFailureTable, WebhookLogTable } from '../schema.js';

export type WebhookLogRow = Selectable<WebhookLogTable>;
export type NewWebhookLog = Insertable<WebhookLogTable>;
export type WebhookFailureRow = Selectable<WebhookFailureTable>;

export async function insertLog(db: Executor, row: NewWebhookLog): Promise<void> {
  await db.insertInto('webhook_logs').values(row).execute();
}

/** A page of a project's log (optionally of some stages), newest first, and the total. */
export async function listLogs(
  db: Executor,
  q: { projectId: string; stageIds?: string[] | undefined; offset: number; limit: number },
): Promise<{ rows: WebhookLogRow[]; total: number }> {
  let base = db.selectFrom('webhook_logs').where('project_id', '=', q.projectId);
  if (q.stageIds) base = base.where('stage_id', 'in', q.stageIds.length ? q.stageIds : ['']);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(q.offset).limit(q.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Marks the task's delivery as failed for good (one row per task: the latest failure wins). */
export async function upsertFailure(db: Executor, row: WebhookFailureRow): Promise<void> {
  const { task_id: _key, ...rest } = row;
  await db
    .insertInto('webhook_failures')
    .values(row)
    .onConflict((oc) => oc.column('task_id').doUpdateSet(rest))
    .execute();
}

// Every group of delivered tasks runs this: compiled once, the ids one parameter.
const deleteFailuresOf = preparedQuery(['ids'], (db, a) =>
  db.deleteFrom('webhook_failures').where(inIdList(db, 'task_id', a.ids)),
);

export async function deleteFailures(db: Executor, taskIds: readonly string[]): Promise<void> {
  if (taskIds.length === 0) return;
  await deleteFailuresOf(db, { ids: idList(db, taskIds) });
}

export interface StageFailures {
  stageId: string;
  failedCount: number;
  lastError: string;
  lastFailedAt: string;
}

/**
 * Per stage, the tasks still waiting there on the visit whose delivery failed for good. A row
 * of a task that moved on (or came back later) no longer matches its task and does not count.
 */
export async function failuresByStage(db: Executor, projectId: string): Promise<StageFailures[]> {
  const live = db
    .selectFrom('webhook_failures as f')
    .innerJoin('tasks as t', 't.id', 'f.task_id')
    .where('f.project_id', '=', projectId)
    .where('t.deleted', '=', 0)
    .whereRef('t.stage_id', '=', 'f.stage_id')
    .whereRef('t.stage_entered_at', '=', 'f.entered_at');
  const counts = await live
    .select(['f.stage_id', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.max('f.failed_at').as('last')])
    .groupBy('f.stage_id')
    .execute();
  const out: StageFailures[] = [];
  for (const c of counts) {
    const latest = await live
      .select(['f.error', 'f.failed_at'])
      .where('f.stage_id', '=', c.stage_id)
      .orderBy('f.failed_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    out.push({
      stageId: c.stage_id,
      failedCount: Number(c.n),
      lastError: latest?.error ?? '',
      lastFailedAt: latest?.failed_at ?? String(c.last),
    });
  }
  return out;
}

/** Live tasks waiting in the given stages: what a re-run sends again. */
export async function tasksWaitingIn(db: Executor, projectId: string, stageIds: readonly string[]) {
  if (stageIds.length === 0) return [];
  return db
    .selectFrom('tasks')
    .select(['id', 'stage_id', 'stage_entered_at'])
    .where('project_id', '=', projectId)
    .where('deleted', '=', 0)
    .where('stage_id', 'in', [...stageIds])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

// Every group of delivered tasks reads its rows with this: compiled once, the ids one parameter.
const tasksToMove = preparedQuery(['ids'], (db, a) => {
  const q = db
    .selectFrom('tasks')
    .selectAll()
    .where(inIdList(db, 'id', a.ids))
    .orderBy('id');
  // Locks the rows: a requeue committing meanwhile waits, or is seen, never lost.
  return engineOf(db) === 'postgres' ? q.forUpdate() : q;
});

/** The tasks in id order, locked on PostgreSQL: the delivered ones a group of outcomes moves. */
export async function lockTasksById(db: Executor, ids: readonly string[]): Promise<TaskRow[]> {
  return tasksToMove(db, { ids: idList(db, ids) });
}
