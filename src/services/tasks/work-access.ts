import type { AppContext } from '../../context.js';
import { forbidden } from '../../errors.js';
import type { Stage } from '../../schemas/stage.js';
import { findLiveAsset } from '../../store/repositories/asset-media.repository.js';
import type { TaskRow } from '../../store/schema.js';
import { can, canWorkStage, type Principal, type ProjectRole } from '../../access.js';
import { currentStage, routingFor } from './task-move.js';
import { loadTask } from './task.service.js';

/*
 * Who may work a task and who may take tasks from a stage: the checks the answering and the
 * handing out of tasks share.
 */

/** Labelers work only tasks assigned to them; Reviewers and up any task of a stage they may work. */
export function demandWork(role: ProjectRole, p: Principal, stage: Stage, task: TaskRow): void {
  if (!canWorkStage(role, stage.type)) throw forbidden(`your role cannot work ${stage.type} stages`);
  if (!can(role, 'review') && task.assignee !== p.email) throw forbidden('this task is not assigned to you');
}

/** A task the caller may annotate now (else 403, or 404 when they cannot see it), with its asset. */
export async function taskToWork(ctx: AppContext, p: Principal, taskId: string) {
  const { task, project } = await loadTask(ctx.store.db, p, taskId);
  const run = routingFor(ctx.store.db, ctx, project.row, p.email);
  demandWork(project.role, p, currentStage(run, task), task);
  const asset = await findLiveAsset(ctx.store.db, task.asset_id);
  return { task, project, asset };
}

/** Whether the caller may take tasks from a stage: a Label or Review stage their role works, within its assignedTo. */
export function mayTake(stage: Stage, role: ProjectRole, email: string): boolean {
  if (stage.type !== 'Label' && stage.type !== 'Review') return false;
  if (!canWorkStage(role, stage.type)) return false;
  const allowed = stage.assignedTo ?? [];
  return allowed.length === 0 || allowed.some((e) => e.toLowerCase() === email);
}
