import type { AppContext } from '../../context.js';
import { audit } from '../audit/audit.service.js';
import { invalidField } from '../../errors.js';
import type { Executor } from '../../store/db.js';
import { chunked } from '../../store/chunks.js';
import { releaseConsensusParent } from '../../workflow/consensus/copies.js';
import { stageById } from '../../workflow/graph.js';
import { moveTask, routeTask, stageExit } from '../../workflow/engine.js';
import {
  deleteHistoryOf,
  pickTaskIds,
  saveTasks,
  setPriority,
  tasksByIds,
} from '../../store/repositories/task-move.repository.js';
import { EMPTY_ANSWER, type TaskState } from '../../workflow/types.js';
import type { Principal } from '../../access.js';
import { batchResolver } from '../assets/asset.service.js';
import { loadProject } from '../identity/project-access.js';
import { routingFor } from './task-move.js';

export interface TaskSelection {
  taskIds?: string[] | undefined;
  externalIds?: string[] | undefined;
  assetIds?: string[] | undefined;
  /** Batch ids or names. */
  batches?: string[] | undefined;
  fromStageIds?: string[] | undefined;
}

/** The ids of the project's live tasks that match every given filter; no filter means all. */
export async function selectTaskIds(
  trx: Executor,
  projectId: string,
  f: TaskSelection,
  opts: { includeCopies: boolean },
): Promise<string[]> {
  let batchIds: string[] | undefined;
  if (f.batches) {
    const resolve = await batchResolver(trx, projectId);
    batchIds = f.batches.map((ref) => resolve(ref)?.id ?? ref);
  }
  // Consensus copies move with their parent; only a filter naming them by id moves them.
  return pickTaskIds(trx, projectId, { ...f, batchIds, includeCopies: opts.includeCopies });
}

/** POST /project/{id}/forward: tasks waiting in a Start or Hold stage move on by next[0]. */
export async function forwardTasks(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  input: { stageId: string; batches?: string[] | undefined; taskIds?: string[] | undefined },
) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'import');
    const run = routingFor(trx, ctx, row, p.email);
    const stage = stageById(run.env.project.stages, input.stageId);
    if (!stage) throw invalidField('stageId', `no stage "${input.stageId}" in this project`);
    const exit = stageExit(stage, { kind: 'forward' });
    if (exit.kind === 'refuse') throw invalidField('stageId', exit.reason);
    if (exit.kind === 'stay') throw new Error(`a ${stage.type} stage keeps forwarded tasks`);
    const ids = await selectTaskIds(
      trx,
      row.id,
      { fromStageIds: [stage.id], batches: input.batches, taskIds: input.taskIds },
      { includeCopies: true },
    );
    for (const task of await tasksByIds(trx, ids)) {
      const state: TaskState = { row: task, isNew: false };
      await moveTask(state, exit.to, run.env, exit.record);
      await saveTasks(trx, [{ after: state.row }]);
    }
    await run.flushEffects();
    await audit(trx, ctx.clock, p, { operation: 'tasks.forward', targetType: 'stage', targetId: stage.id, projectId });
    return { forwarded: ids.length, stageId: stage.id };
  });
}

export interface RequeueInput {
  toStageId: string;
  filters?: TaskSelection | undefined;
  options?: { removeAnnotations?: boolean; removeAssignee?: boolean; removeStageHistory?: boolean } | undefined;
}

/**
 * POST /project/{id}/requeueTasks: the chosen tasks enter `toStageId`, whose entry behaviour
 * runs (a Logic stage routes again, a Webhook stage fires). Tasks resting in a stage with
 * `preventRequeue` stay where they are.
 */
export async function requeueTasks(ctx: AppContext, p: Principal, projectId: string, input: RequeueInput) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'import');
    const run = routingFor(trx, ctx, row, p.email);
    const stages = run.env.project.stages;
    if (!stageById(stages, input.toStageId))
      throw invalidField('toStageId', `no stage "${input.toStageId}" in this project`);
    const filters = input.filters ?? {};
    const opts = input.options ?? {};
    const ids = await selectTaskIds(trx, row.id, filters, { includeCopies: filters.taskIds !== undefined });
    const locked = new Set(stages.filter((s) => s.preventRequeue).map((s) => s.id));
    let modified = 0;
    for (const part of chunked(ids, 1000)) {
      const rows = (await tasksByIds(trx, part)).filter((t) => !locked.has(t.stage_id));
      if (opts.removeStageHistory && rows.length) {
        await deleteHistoryOf(
          trx,
          rows.map((t) => t.id),
        );
      }
      for (const task of rows) {
        // A parent leaving its Consensus stage drops the copies still being worked.
        await releaseConsensusParent(trx, stages, task, run.env.now());
        const state: TaskState = { row: { ...task }, isNew: false };
        if (opts.removeAnnotations) {
          state.row.answer = JSON.stringify(EMPTY_ANSWER);
          state.row.is_pre_labeled = 0;
        }
        if (opts.removeStageHistory) await routeTask(state, input.toStageId, run.env);
        else await moveTask(state, input.toStageId, run.env, { trigger: 'requeue' });
        // The assignee stays with the task unless asked otherwise (or the stage remembers one).
        if (!opts.removeAssignee && state.row.assignee === null) state.row.assignee = task.assignee;
        state.row.updated_by = p.email;
        await saveTasks(trx, [{ after: state.row }]);
        modified += 1;
      }
      await run.flushEffects();
    }
    // Field names: the options asked for (removeAnnotations, ...), which say what the move dropped.
    const fields = Object.keys(opts).filter((k) => opts[k as keyof typeof opts] === true);
    await audit(trx, ctx.clock, p, {
      operation: 'tasks.requeue',
      targetType: 'stage',
      targetId: input.toStageId,
      projectId,
      fields,
    });
    return { modifiedCount: { modified, toStageId: input.toStageId } };
  });
}

/** POST /project/{id}/updatePriority: sets the priority of the chosen tasks. */
export async function updatePriority(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  input: { filters?: TaskSelection | undefined; priority: number },
) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'import');
    const filters = input.filters ?? {};
    const ids = await selectTaskIds(trx, row.id, filters, { includeCopies: true });
    const now = new Date(ctx.clock.now()).toISOString();
    await setPriority(trx, ids, { priority: input.priority, now, by: p.email });
    await audit(trx, ctx.clock, p, {
      operation: 'tasks.priority',
      targetType: 'project',
      targetId: row.id,
      projectId: row.id,
      fields: ['priority', ...Object.keys(filters).filter((k) => filters[k as keyof TaskSelection] !== undefined)],
    });
    return { modifiedCount: ids.length, priority: input.priority };
  });
}
