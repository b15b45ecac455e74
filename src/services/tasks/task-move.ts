import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import type { CategorySchema } from '../../schemas/category-schema.js';
import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import type { ProjectRow, TaskRow } from '../../store/schema.js';
import { stageById } from '../../workflow/graph.js';
import { moveTask, stageExit } from '../../workflow/engine.js';
import type { ExitOutcome, ExitRequest } from '../../workflow/stage-behavior.js';
import { recordExit } from '../../workflow/stage-exit.js';
import { saveTasks } from '../../store/repositories/task-move.repository.js';
import { type RoutingRun, startRouting } from '../../workflow/routing.js';
import type { ExitRecord, TaskState } from '../../workflow/types.js';
import { brushReader } from '../files/layers/brush-layers.js';
import { voxelReader } from '../files/layers/medical-layer.js';
import { projectInfo } from '../projects/project-view.js';
import { loadTaskExtras, taskView, type TaskViewOptions } from './task-view.js';

/** Reads tasks' brush layers as class numbers of the ontology's brush tools (consensus, benchmarks). */
export function brushLayerReader(ctx: AppContext, schema: CategorySchema) {
  return brushReader(ctx, schema);
}

/** A routing run for changes to existing tasks of one project. */
export function routingFor(trx: Executor, ctx: AppContext, project: ProjectRow, actor: string | null): RoutingRun {
  const info = projectInfo(project);
  return startRouting(trx, ctx, info, actor, brushLayerReader(ctx, info.categorySchema), voxelReader(ctx));
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
  await saveTasks(trx, [{ after: state.row }]);
  await run.flushEffects();
  return state.row;
}

/** An exit the stage allows. */
export type AllowedExit = Exclude<ExitOutcome, { kind: 'refuse' }>;

/**
 * What the task's stage does with a request to leave it (a submit, a review decision, a skip),
 * as that stage type's behaviour decides; a stage type that is not left this way answers 409.
 * Nothing is written yet: `takeExit` does that, once the caller's other checks passed.
 */
export function allowedExit(stage: Stage, request: ExitRequest): AllowedExit {
  const exit = stageExit(stage, request);
  if (exit.kind === 'refuse') throw new AppError('CONFLICT', exit.reason);
  return exit;
}

/** Takes an allowed exit: writes the task and the run's effects, moved on or kept in its stage. */
export async function takeExit(
  run: RoutingRun,
  trx: Executor,
  task: TaskRow,
  stage: Stage,
  exit: AllowedExit,
): Promise<TaskRow> {
  if (exit.kind === 'leave') return moveAndSave(run, trx, task, exit.to, exit.record);
  // The stay is recorded without time: the time stays on the task until it leaves.
  recordExit({ row: { ...task, duration: 0 }, isNew: false }, stage, run.env, exit.record);
  await saveTasks(trx, [{ after: task }]);
  await run.flushEffects();
  return task;
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
