import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import type { ProjectRow, TaskRow } from '../../store/schema.js';
import { stageById } from '../../workflow/graph.js';
import { moveTask } from '../../workflow/engine.js';
import type { ExitRecord } from '../../workflow/stage-exit.js';
import { type RoutingRun, saveTask, startRouting } from '../../workflow/routing.js';
import type { TaskState } from '../../workflow/types.js';
import { brushReader } from '../exports/datasets/brush-layers.js';
import { projectInfo } from '../projects/project-view.js';
import { loadTaskExtras, taskView, type TaskViewOptions } from './task-view.js';

/** A routing run for changes to existing tasks of one project. */
export function routingFor(trx: Executor, ctx: AppContext, project: ProjectRow, actor: string | null): RoutingRun {
  const info = projectInfo(project);
  return startRouting(trx, ctx, info, actor, brushReader(ctx, info.categorySchema));
}

export function currentStage(run: RoutingRun, task: TaskRow): Stage {
  const stage = stageById(run.env.project.stages, task.stage_id);
  if (!stage)
    throw new AppError('CONFLICT', `the task sits in stage "${task.stage_id}", which the workflow no longer has`);
  return stage;
}

/** Moves one existing task out of its stage by `to`, then writes it and the run's effects. */
export async function moveAndSave(
  run: RoutingRun,
  trx: Executor,
  task: TaskRow,
  to: string,
  exit: ExitRecord,
): Promise<TaskRow> {
  const state: TaskState = { row: { ...task }, isNew: false };
  await moveTask(state, to, run.env, exit);
  await saveTask(trx, state.row);
  await run.flushEffects();
  return state.row;
}

/** The output a stage leaves by; a stage without it answers 409. */
export function output(stage: Stage, index: number): string {
  const to = stage.next?.[index];
  if (to === undefined) throw new AppError('CONFLICT', `stage "${stage.id}" has no output ${index}`);
  return to;
}

/** The full task view (with its answer) of a row, as single-task operations answer. */
export async function fullTaskView(
  db: Executor,
  row: TaskRow,
  stages: readonly Stage[],
  links: TaskViewOptions['links'],
) {
  const extras = await loadTaskExtras(db, [row]);
  return taskView(row, {
    includeAnswer: true,
    links,
    stages,
    asset: extras.assets.get(row.asset_id),
    batches: extras.batches.get(row.asset_id) ?? [],
  });
}
