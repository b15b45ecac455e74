import type { AppContext } from '../../context.js';
import { audit } from '../audit/audit.service.js';
import { conflict, forbidden, invalidField, notFound } from '../../errors.js';
import { isId } from '../../ids.js';
import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import { findHandoutOfTask } from '../../store/repositories/benchmark-queue.repository.js';
import { findTask } from '../../store/repositories/task.repository.js';
import {
  countDoneSince,
  countFree,
  countHeld,
  releaseHeldTask,
  takeNamedTask,
} from '../../store/repositories/work-queue.repository.js';
import { stageById } from '../../workflow/graph.js';
import { can, type Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { cachedJson, projectSettings } from '../projects/project-view.js';
import { QUEUE_COUNT_CAP } from './queue.service.js';
import { taskLinks } from '../files/layers/brush-layer.js';
import { fullTaskView } from './task-move.js';
import { loadTask } from './task.service.js';
import { mayTake } from './work-access.js';

/** The Label or Review stage a task sits in, when the caller may take tasks from it; 409 otherwise. */
function workableStage(stages: Stage[], stageId: string, role: Parameters<typeof mayTake>[1], email: string) {
  const stage = stageById(stages, stageId);
  if (!stage || (stage.type !== 'Label' && stage.type !== 'Review')) {
    throw conflict(`the task is in a ${stage?.type ?? 'removed'} stage, which nobody holds tasks in`);
  }
  if (!mayTake(stage, role, email)) throw forbidden(`you may not take tasks from stage "${stage.id}"`);
  return stage;
}

/** `updatedAt` as sent: an ISO time, or a 400 naming the field. */
function isoTime(field: string, value: string): string {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw invalidField(field, 'must be an ISO 8601 date-time');
  return new Date(ms).toISOString();
}

/**
 * POST /task/{taskId}/release (an extension): the person the task is assigned to gives it back
 * to its stage's queue, answer and time kept, so /next hands it to whoever asks next. With
 * `updatedAt` the task is released only while it is unchanged since then (the editor's release on
 * leaving, which a reopened editor must be able to overtake); otherwise 409 and nothing changes.
 */
export async function release(
  ctx: AppContext,
  p: Principal,
  taskId: string,
  input: { updatedAt?: string | undefined },
) {
  const expected = input.updatedAt === undefined ? undefined : isoTime('updatedAt', input.updatedAt);
  return ctx.store.db.transaction().execute(async (trx) => {
    const { task, project, stages } = await loadTask(trx, p, taskId);
    if (task.assignee !== p.email) throw forbidden('only the person the task is assigned to can release it');
    workableStage(stages, task.stage_id, project.role, p.email);
    if (expected !== undefined && new Date(task.updated_at).toISOString() !== expected) {
      throw conflict('the task changed after updatedAt: it was not released');
    }
    const row = { ...task, assignee: null, updated_at: new Date(ctx.clock.now()).toISOString(), updated_by: p.email };
    await releaseHeldTask(trx, task.id, p.email, row.updated_at);
    await audit(trx, ctx.clock, p, {
      operation: 'task.release',
      targetType: 'task',
      targetId: task.id,
      projectId: project.row.id,
      fields: ['assignee'],
    });
    return fullTaskView(trx, row, stages, taskLinks(ctx));
  });
}

/**
 * POST /task/{taskId}/take (an extension): the caller takes one named task of a stage they may
 * take tasks from, when /next could hand it to them (the same predicate: live, free, no copy of
 * the same consensus round held or submitted by them; never a benchmark). A task they already
 * hold answers as it is, its `updatedAt` renewed (a release sent earlier with the old one is then
 * refused). Someone else's task, or one no longer in a stage they may work, answers 409.
 */
export async function take(ctx: AppContext, p: Principal, taskId: string) {
  const task = isId(taskId) ? await findTask(ctx.store.db, taskId) : undefined;
  if (!task) throw notFound('task');
  const { row, role } = await loadProject(ctx.store.db, p, task.project_id, 'read').catch((err: unknown) => {
    if (err instanceof Error && 'status' in err && err.status === 404) throw notFound('task');
    throw err;
  });
  const stages = cachedJson<Stage[]>(row.stages, []);
  workableStage(stages, task.stage_id, role, p.email);
  // Strictly later than the updatedAt read before, so a release sent with that one is refused.
  const now = new Date(Math.max(ctx.clock.now(), Date.parse(String(task.updated_at)) + 1)).toISOString();
  return ctx.store.db.transaction().execute(async (trx) => {
    const taken = await takeNamedTask(trx, {
      projectId: row.id,
      taskId: task.id,
      stageId: task.stage_id,
      email: p.email,
      now,
    });
    if (!taken) throw conflict('the task is not free for you: someone else holds it, or it left the stage');
    await audit(trx, ctx.clock, p, {
      operation: 'task.take',
      targetType: 'task',
      targetId: task.id,
      projectId: row.id,
      fields: task.assignee === p.email ? [] : ['assignee'],
    });
    return fullTaskView(trx, taken, stages, taskLinks(ctx));
  });
}

/**
 * The task as loadTask answers it, or a benchmark /next handed the caller (a Labeler works it as
 * their own in the stage it was handed out from, though it is never assigned to them).
 */
async function loadWorkedTask(db: Executor, p: Principal, taskId: string) {
  try {
    return await loadTask(db, p, taskId);
  } catch (err) {
    const handout = isId(taskId) ? await findHandoutOfTask(db, taskId, p.email) : undefined;
    const task = handout ? await findTask(db, taskId) : undefined;
    if (!handout || !task) throw err;
    const project = await loadProject(db, p, task.project_id, 'read');
    const stages = cachedJson<Stage[]>(project.row.stages, []);
    return { task: { ...task, stage_id: handout.stage_id }, project, stages };
  }
}

/**
 * GET /task/{taskId}/position (an extension): where the caller stands in the stage the task sits
 * in, for the editor's "Task 3 of 12". `done` counts what the caller finished in the stage since
 * `since` (each submit, accept, reject or skip; their history entries), `held` the other tasks of
 * the stage assigned to them, `waiting` the free ones /next could hand them (null for a Labeler
 * when the project turned `queueCountsEnabled` off). `position` is `done + 1`; `total` is
 * `position + held + waiting` (null when `waiting` is). Counts stop at 1000, each read walks an
 * index.
 */
export async function position(ctx: AppContext, p: Principal, taskId: string, since: string | undefined) {
  const from = since === undefined ? undefined : isoTime('since', since);
  const db = ctx.store.db;
  const { task, project, stages } = await loadWorkedTask(db, p, taskId);
  const stage = workableStage(stages, task.stage_id, project.role, p.email);
  const showWaiting = can(project.role, 'readAll') || projectSettings(project.row).queueCountsEnabled !== false;
  const queue = { projectId: task.project_id, stageId: stage.id, email: p.email, cap: QUEUE_COUNT_CAP };
  const done = from === undefined ? 0 : await countDoneSince(db, { ...queue, since: from });
  const held = await countHeld(db, { ...queue, except: task.id });
  const free = showWaiting ? await countFree(db, { ...queue, except: task.id }) : null;
  const capped = (n: number) => Math.min(n, QUEUE_COUNT_CAP);
  const at = capped(done) + 1;
  const waiting = free === null ? null : capped(free);
  return {
    stageId: stage.id,
    stageName: stage.name ?? stage.id,
    position: at,
    total: waiting === null ? null : at + capped(held) + waiting,
    done: capped(done),
    held: capped(held),
    waiting,
    capped: done > QUEUE_COUNT_CAP || held > QUEUE_COUNT_CAP || (free ?? 0) > QUEUE_COUNT_CAP,
  };
}
