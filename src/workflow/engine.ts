import { AppError } from '../errors.js';
import type { Stage } from '../schemas/stage.js';
import { BEHAVIORS } from './behaviors/index.js';
import { stageById } from './graph.js';
import { recordExit } from './stage-exit.js';
import { type ExitOutcome, type ExitRequest, type RoutingEnv, statusFor } from './stage-behavior.js';
import type { ExitRecord, TaskState } from './types.js';

/** A workflow whose automatic stages send a task round in circles stops it after this many hops. */
export const MAX_HOPS = 64;

/** Puts the task's row in `stage`: stage, status, the clock of the stage, the assignee. */
async function place(task: TaskState, stage: Stage, env: RoutingEnv): Promise<void> {
  const row = task.row;
  const now = env.now();
  row.stage_id = stage.id;
  row.status = statusFor(stage.type);
  row.stage_entered_at = now;
  row.duration = 0;
  row.is_draft = 0;
  row.updated_at = now;
  row.assignee = null;
  if (stage.rememberAssignee && !task.isNew) {
    row.assignee = (await env.facts(task).lastCompleterIn(stage.id)) ?? null;
  }
  if (row.status === 'Completed' || row.status === 'Archived') {
    row.completed_at = now;
    row.completed_by = env.actor;
  } else {
    row.completed_at = null;
    row.completed_by = null;
  }
}

/**
 * Moves a task into stage `to` and runs stage behaviours until it rests: Start forwards, Logic
 * routes, Webhook and Plugin queue their job, Consensus makes copies. Only memory changes here;
 * the caller writes the row and `env.effects` in its transaction.
 */
export async function routeTask(task: TaskState, to: string, env: RoutingEnv): Promise<void> {
  let target = to;
  for (let hop = 0; hop < MAX_HOPS; hop += 1) {
    const stage = stageById(env.project.stages, target);
    if (!stage) throw new AppError('CONFLICT', `the workflow has no stage "${target}"`);
    await place(task, stage, env);
    const outcome = await BEHAVIORS[stage.type].enter(task, stage, env);
    if (outcome.kind === 'wait') return;
    if (outcome.record) recordExit(task, stage, env, { trigger: outcome.trigger });
    target = outcome.to;
  }
  throw new AppError(
    'CONFLICT',
    `the workflow routed task ${task.row.id} through more than ${MAX_HOPS} automatic stages; check its Logic stages for a loop`,
  );
}

/** What the stage does with a request to leave it (its type's behaviour decides; nothing moves yet). */
export function stageExit(stage: Stage, request: ExitRequest): ExitOutcome {
  return BEHAVIORS[stage.type].exit(stage, request);
}

/** Leaves the current stage by `to`, recording the exit, then routes into `to`. */
export async function moveTask(task: TaskState, to: string, env: RoutingEnv, exit: ExitRecord): Promise<void> {
  const current = stageById(env.project.stages, task.row.stage_id);
  recordExit(task, current, env, exit);
  if (exit.reviewStatus !== undefined) task.row.review_status = exit.reviewStatus;
  await routeTask(task, to, env);
}
