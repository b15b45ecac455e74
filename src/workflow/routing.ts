import type { AppContext } from '../context.js';
import { newId } from '../ids.js';
import { insertJobs } from '../jobs/queue.js';
import type { Executor } from '../store/db.js';
import type { TaskRow } from '../store/schema.js';
import { chunked, insertInChunks } from '../store/chunks.js';
import { idList, inIdList, type PreparedValue, preparedQuery } from '../store/prepared-query.js';
import type { RoutingEnv } from './stage-behavior.js';
import { makeSampler } from '../adapters/random.js';
import { routeTask } from './engine.js';
import { emptyEffects, type ProjectInfo, type TaskFacts, type TaskState } from './types.js';

/** Facts of a task read from the store, seeing also what this run has not written yet. */
function storedFacts(trx: Executor, task: TaskState, env: RoutingEnv, known: KnownFacts | undefined): TaskFacts {
  const id = task.row.id;
  const pending = () => env.effects.history.filter((h) => h.task_id === id);
  const lastPending = (pred: (h: RoutingEnv['effects']['history'][number]) => boolean) =>
    pending().filter(pred).at(-1)?.completed_by ?? undefined;
  return {
    async batches() {
      if (known) return known.batches;
      return trx
        .selectFrom('asset_batches as ab')
        .innerJoin('batches as b', 'b.id', 'ab.batch_id')
        .select(['b.id', 'b.name'])
        .where('ab.asset_id', '=', task.row.asset_id)
        .execute();
    },
    async lastLabelSubmitter() {
      const isSubmit = (h: { stage_type: string; trigger: string }) =>
        h.stage_type === 'Label' && h.trigger === 'submit';
      const mine = lastPending(isSubmit);
      if (mine || task.isNew) return mine;
      const row = await trx
        .selectFrom('task_history')
        .select('completed_by')
        .where('task_id', '=', id)
        .where('stage_type', '=', 'Label')
        .where('trigger', '=', 'submit')
        .orderBy('completed_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return row?.completed_by ?? undefined;
    },
    async labelDuration() {
      const mine = pending()
        .filter((h) => h.stage_type === 'Label')
        .reduce((sum, h) => sum + h.duration, 0);
      if (task.isNew) return mine;
      const row = await trx
        .selectFrom('task_history')
        .select((eb) => eb.fn.sum<number>('duration').as('total'))
        .where('task_id', '=', id)
        .where('stage_type', '=', 'Label')
        .executeTakeFirst();
      return mine + Number(row?.total ?? 0);
    },
    async openIssueErrorCodes() {
      if (task.isNew) return [];
      const rows = await trx
        .selectFrom('issues')
        .select('error_codes')
        .where('task_id', '=', id)
        .where('status', '=', 'Open')
        .where('deleted', '=', 0)
        .execute();
      // A code is stored as sent: a string, or the client's {category, name, key} named by key.
      return rows.flatMap((r) =>
        (JSON.parse(r.error_codes) as (string | { key: string })[]).map((c) => (typeof c === 'string' ? c : c.key)),
      );
    },
    async lastCompleterIn(stageId) {
      const mine = lastPending((h) => h.stage_id === stageId && h.completed_by !== null);
      if (mine || task.isNew) return mine;
      const row = await trx
        .selectFrom('task_history')
        .select('completed_by')
        .where('task_id', '=', id)
        .where('stage_id', '=', stageId)
        .where('completed_by', 'is not', null)
        .orderBy('completed_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return row?.completed_by ?? undefined;
    },
  };
}

/** What is known of a task made in this run without asking the store. */
export interface KnownFacts {
  batches: { id: string; name: string }[];
}

export interface RoutingRun {
  env: RoutingEnv;
  /** Routes a task into a stage. */
  route(task: TaskState, to: string): Promise<void>;
  /** Declares what is known of a new task (its batches), until the next flushEffects. */
  know(taskId: string, facts: KnownFacts): void;
  /** Writes the effects: history entries, jobs, consensus copies and changed tasks. */
  flushEffects(): Promise<void>;
}

/** One routing run inside the caller's transaction: many tasks, effects written in bulk. */
export function startRouting(
  trx: Executor,
  ctx: AppContext,
  project: ProjectInfo,
  actor: string | null,
  readBrush: RoutingEnv['readBrush'] = async () => undefined,
): RoutingRun {
  const known = new Map<string, KnownFacts>();
  const sampler = makeSampler(ctx.config.randomSeed);
  const env: RoutingEnv = {
    trx,
    project,
    clock: ctx.clock,
    random: sampler,
    actor,
    effects: emptyEffects(),
    facts: (task) => storedFacts(trx, task, env, known.get(task.row.id)),
    route: (task, to) => routeTask(task, to, env),
    newId: () => newId(ctx.clock.now()),
    now: () => new Date(ctx.clock.now()).toISOString(),
    readBrush,
  };
  return {
    env,
    route: (task, to) => routeTask(task, to, env),
    know: (taskId, facts) => known.set(taskId, facts),
    async flushEffects() {
      const { history, jobs, newTasks, updatedTasks } = env.effects;
      await insertInChunks(trx, 'task_history', history);
      await insertInChunks(trx, 'tasks', newTasks);
      for (const row of updatedTasks) await saveTask(trx, row);
      await insertJobs(trx, jobs, ctx.clock);
      env.effects = emptyEffects();
      // What was known of the tasks routed so far served them; an import routes in chunks.
      known.clear();
    },
  };
}

/**
 * Writes what routing changed on existing tasks, `before` being each row as read in this
 * transaction: only the changed columns, and one UPDATE for all the tasks whose changes are
 * the same (tasks moved together by one operation mostly are), instead of a full-row UPDATE
 * per task that rewrote every index entry of the row.
 */
export async function saveMovedTasks(
  trx: Executor,
  moves: readonly { before: TaskRow; after: TaskRow }[],
): Promise<void> {
  const groups = new Map<string, { set: Partial<TaskRow>; ids: string[] }>();
  for (const { before, after } of moves) {
    const set: Record<string, unknown> = {};
    for (const key of Object.keys(after) as (keyof TaskRow)[]) {
      if (key !== 'id' && after[key] !== before[key]) set[key] = after[key];
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

/** Writes every column of a task row that routing may change. */
export async function saveTask(trx: Executor, row: TaskRow): Promise<void> {
  const { id, ...rest } = row;
  await trx.updateTable('tasks').set(rest).where('id', '=', id).execute();
}
