import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../db.js';
import type { PluginCallTable, PluginLogTable, PluginTable } from '../schema.js';

export type PluginRow = Selectable<PluginTable>;
export type PluginCallRow = Selectable<PluginCallTable>;
export type PluginLogRow = Selectable<PluginLogTable>;
export type NewPluginLog = Insertable<PluginLogTable>;

export async function insertPlugin(db: Executor, row: PluginRow): Promise<void> {
  await db.insertInto('plugins').values(row).execute();
}

/** A live plugin of the organization; another organization's plugin is simply not found. */
export async function findPlugin(db: Executor, orgId: string, id: string): Promise<PluginRow | undefined> {
  return db
    .selectFrom('plugins')
    .selectAll()
    .where('id', '=', id)
    .where('organization_id', '=', orgId)
    .where('deleted', '=', 0)
    .executeTakeFirst();
}

/** Which of `ids` are live plugins of the organization. */
export async function livePluginIds(db: Executor, orgId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('plugins')
    .select('id')
    .where('organization_id', '=', orgId)
    .where('deleted', '=', 0)
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

export async function listPlugins(db: Executor, q: { orgId: string; offset: number; limit: number }) {
  const base = db.selectFrom('plugins').where('organization_id', '=', q.orgId).where('deleted', '=', 0);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(q.offset).limit(q.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Soft delete: the record stays (flagged), its sealed secret goes. */
export async function softDeletePlugin(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('plugins').set({ deleted: 1, deleted_at: at, secret: null }).where('id', '=', id).execute();
}

export async function findCall(db: Executor, session: string): Promise<PluginCallRow | undefined> {
  return db.selectFrom('plugin_calls').selectAll().where('id', '=', session).executeTakeFirst();
}

/** Records an attempt of a call: the row is made on the first attempt. */
export async function startAttempt(db: Executor, row: PluginCallRow): Promise<void> {
  await db
    .insertInto('plugin_calls')
    .values(row)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({ status: row.status, attempts: row.attempts, updated_at: row.updated_at }),
    )
    .execute();
}

/** Changes a call's status, only from one of `from` (an answer that already came is kept). */
export async function setCallStatus(
  db: Executor,
  session: string,
  to: { status: string; error: string | null; updated_at: string },
  from?: readonly string[],
): Promise<void> {
  let q = db.updateTable('plugin_calls').set(to).where('id', '=', session);
  if (from) q = q.where('status', 'in', [...from]);
  await q.execute();
}

/** A re-run replaces the calls of the tasks it sends again: their old failures stop counting. */
export async function supersedeCalls(db: Executor, taskIds: readonly string[], at: string): Promise<void> {
  if (taskIds.length === 0) return;
  await db
    .updateTable('plugin_calls')
    .set({ status: 'superseded', updated_at: at })
    .where('task_id', 'in', [...taskIds])
    .where('status', 'in', ['sending', 'waiting', 'failed'])
    .execute();
}

export async function insertLogs(db: Executor, rows: NewPluginLog[]): Promise<void> {
  if (rows.length) await db.insertInto('plugin_logs').values(rows).execute();
}

export interface LogQuery {
  session?: string | undefined;
  projectId?: string | undefined;
  stageId?: string | undefined;
  taskId?: string | undefined;
  offset: number;
  limit: number;
  descending: boolean;
}

export async function listLogs(db: Executor, q: LogQuery): Promise<{ rows: PluginLogRow[]; total: number }> {
  let base = db.selectFrom('plugin_logs');
  if (q.session !== undefined) base = base.where('session_id', '=', q.session);
  if (q.projectId !== undefined) base = base.where('project_id', '=', q.projectId);
  if (q.stageId !== undefined) base = base.where('stage_id', '=', q.stageId);
  if (q.taskId !== undefined) base = base.where('task_id', '=', q.taskId);
  const dir = q.descending ? 'desc' : 'asc';
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', dir).orderBy('id', dir).offset(q.offset).limit(q.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export interface StageCallFailures {
  stageId: string;
  failedCount: number;
  lastError: string;
  lastFailedAt: string;
}

/**
 * Per stage, the tasks still waiting there, on the visit whose plugin call failed. A call of a
 * task that moved on (or came back later, or was re-run) no longer matches and does not count.
 */
export async function callFailuresByStage(db: Executor, projectId: string): Promise<StageCallFailures[]> {
  const live = db
    .selectFrom('plugin_calls as c')
    .innerJoin('tasks as t', 't.id', 'c.task_id')
    .where('c.project_id', '=', projectId)
    .where('c.status', '=', 'failed')
    .where('t.deleted', '=', 0)
    .whereRef('t.stage_id', '=', 'c.stage_id')
    .whereRef('t.stage_entered_at', '=', 'c.entered_at');
  const counts = await live
    .select(['c.stage_id', (eb) => eb.fn.count<number>('c.task_id').distinct().as('n')])
    .groupBy('c.stage_id')
    .orderBy('c.stage_id')
    .execute();
  const out: StageCallFailures[] = [];
  for (const c of counts) {
    const latest = await live
      .select(['c.error', 'c.updated_at'])
      .where('c.stage_id', '=', c.stage_id)
      .orderBy('c.updated_at', 'desc')
      .orderBy('c.id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    out.push({
      stageId: c.stage_id,
      failedCount: Number(c.n),
      lastError: latest.error ?? 'unknown error',
      lastFailedAt: latest.updated_at,
    });
  }
  return out;
}

/** Every plugin still holding a sealed secret, in id order, `limit` at a time after `afterId`. */
export async function pluginsWithSecrets(
  db: Executor,
  afterId: string,
  limit: number,
): Promise<{ id: string; secret: string }[]> {
  const rows = await db
    .selectFrom('plugins')
    .select(['id', 'secret'])
    .where('secret', 'is not', null)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.flatMap((r) => (r.secret === null ? [] : [{ id: r.id, secret: r.secret }]));
}

export async function updatePluginSecret(db: Executor, id: string, secret: string): Promise<void> {
  await db.updateTable('plugins').set({ secret }).where('id', '=', id).execute();
}
