import type { AppContext } from '../context.js';
import { newId } from '../ids.js';
import { insertJobs } from '../jobs/queue.js';
import type { Executor } from '../store/db.js';
import { insertInChunks } from '../store/chunks.js';
import * as facts from '../store/repositories/routing-facts.repository.js';
import { saveTasks } from '../store/repositories/task-move.repository.js';
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
      return facts.batchesOfAsset(trx, task.row.asset_id);
    },
    async lastLabelSubmitter() {
      const isSubmit = (h: { stage_type: string; trigger: string }) =>
        h.stage_type === 'Label' && h.trigger === 'submit';
      const mine = lastPending(isSubmit);
      if (mine || task.isNew) return mine;
      return facts.lastLabelSubmitter(trx, id);
    },
    async labelDuration() {
      const mine = pending()
        .filter((h) => h.stage_type === 'Label')
        .reduce((sum, h) => sum + h.duration, 0);
      if (task.isNew) return mine;
      return mine + (await facts.labelDuration(trx, id));
    },
    async openIssueErrorCodes() {
      if (task.isNew) return [];
      const stored = await facts.openIssueErrorCodes(trx, id);
      // A code is stored as sent: a string, or the client's {category, name, key} named by key.
      return stored.flatMap((codes) =>
        (JSON.parse(codes) as (string | { key: string })[]).map((c) => (typeof c === 'string' ? c : c.key)),
      );
    },
    async lastCompleterIn(stageId) {
      const mine = lastPending((h) => h.stage_id === stageId && h.completed_by !== null);
      if (mine || task.isNew) return mine;
      return facts.lastCompleterIn(trx, id, stageId);
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
  readVoxels: RoutingEnv['readVoxels'] = async () => undefined,
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
    readVoxels,
  };
  return {
    env,
    route: (task, to) => routeTask(task, to, env),
    know: (taskId, facts) => known.set(taskId, facts),
    async flushEffects() {
      const { history, jobs, newTasks, updatedTasks } = env.effects;
      await insertInChunks(trx, 'task_history', history);
      await insertInChunks(trx, 'tasks', newTasks);
      await saveTasks(
        trx,
        updatedTasks.map((after) => ({ after })),
      );
      await insertJobs(trx, jobs, ctx.clock);
      env.effects = emptyEffects();
      // What was known of the tasks routed so far served them; an import routes in chunks.
      known.clear();
    },
  };
}
