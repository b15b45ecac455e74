import { makeSampler } from '../../adapters/random.js';
import { taskLinks } from '../files/layers/brush-layer.js';
import type { AppContext } from '../../context.js';
import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import { taskById } from '../../store/repositories/row-by-id.repository.js';
import {
  deleteHandout,
  findHandout,
  findResume,
  firstUndone,
  labelerRecord,
  putHandout,
  workedCount,
} from '../../store/repositories/benchmark-queue.repository.js';
import type { ProjectRow, TaskRow } from '../../store/schema.js';
import { EMPTY_ANSWER } from '../../workflow/types.js';
import { projectSettings } from '../projects/project-view.js';
import { fullTaskView } from './task-move.js';

/** The average below which the cutoff stops a labeler, unless the project sets `benchmarkThreshold`. */
export const CUTOFF_DEFAULT_THRESHOLD = 70;
/** The cutoff judges a labeler only after this many benchmarks (since a Manager last resumed them). */
export const CUTOFF_MINIMUM_BENCHMARKS = 3;

export interface BenchmarkTurn {
  task: Record<string, unknown> | null;
  /** Set when the cutoff stopped the caller: why, in words. */
  reason?: string;
}

/**
 * The benchmark as the labeler works it: in their Label stage, assigned to them, unanswered, an
 * ordinary task to look at. The stored task is not touched.
 */
export function asHandedOut(task: TaskRow, stage: Stage, email: string): TaskRow {
  return {
    ...task,
    answer: JSON.stringify(EMPTY_ANSWER),
    stage_id: stage.id,
    status: 'TODO',
    assignee: email,
    type: 'default',
    review_status: null,
    duration: 0,
    total_duration: 0,
    is_draft: 0,
    is_pre_labeled: 0,
    // The task's own layers are the reference's: the labeler starts from none.
    brush_data_url: null,
    medical_brush_data_url: null,
    brush_frames: null,
    consensus_score: null,
    completed_at: null,
    completed_by: null,
    updated_by: null,
  };
}

/** Whether the cutoff stops the labeler now, and why in words. */
async function cutoffReason(db: Executor, row: ProjectRow, email: string): Promise<string | undefined> {
  const settings = projectSettings(row);
  if (settings.benchmarkCutoff !== true) return undefined;
  const threshold =
    typeof settings.benchmarkThreshold === 'number' ? settings.benchmarkThreshold : CUTOFF_DEFAULT_THRESHOLD;
  const since = (await findResume(db, row.id, email))?.resumed_at ?? '';
  const record = await labelerRecord(db, row.id, email, since);
  if (record.count < CUTOFF_MINIMUM_BENCHMARKS || record.average === null || record.average >= threshold) {
    return undefined;
  }
  return (
    `Your average benchmark score (${record.average.toFixed(1)} over ${record.count} benchmarks) is below ` +
    `this project's threshold of ${threshold}; a Manager of the project has to let you continue.`
  );
}

/**
 * Before /next takes a task of a Label stage: the benchmark the caller is working, or with the
 * likelihood `benchmarkRatio` (one draw per task the caller has worked, keyed by stage, person
 * and that count, so ANNOTARY_RANDOM_SEED repeats the draws as the Logic stage's sampling does) a benchmark they have not done; a caller stopped by the cutoff gets only
 * benchmarks, or nothing and the reason. Undefined: take an ordinary task.
 */
export async function benchmarkTurn(
  ctx: AppContext,
  db: Executor,
  row: ProjectRow,
  stage: Stage,
  email: string,
  stages: readonly Stage[],
): Promise<BenchmarkTurn | undefined> {
  const settings = projectSettings(row);
  const ratio = typeof settings.benchmarkRatio === 'number' ? settings.benchmarkRatio : 0;
  // A ratio of 0 pauses benchmarking: no benchmarks handed out, nobody stopped.
  if (stage.type !== 'Label' || settings.benchmarkEnabled !== true || ratio <= 0) return undefined;
  const handout = await findHandout(db, row.id, email);
  if (handout) {
    if (handout.stage_id !== stage.id) return undefined;
    const task = await taskById(db, handout.task_id);
    if (task && task.type === 'benchmark' && task.deleted === 0) {
      return { task: await fullTaskView(db, asHandedOut(task, stage, email), stages, taskLinks(ctx)) };
    }
    await deleteHandout(db, row.id, email);
  }
  const reason = await cutoffReason(db, row, email);
  const n = await workedCount(db, row.id, stage.id, email);
  const draw = makeSampler(ctx.config.randomSeed)(`benchmark\u0000${stage.id}\u0000${email}\u0000${n}`);
  if (draw < ratio || reason) {
    const task = await firstUndone(db, row.id, email);
    if (task) {
      const at = new Date(ctx.clock.now()).toISOString();
      await putHandout(db, { project_id: row.id, labeler: email, task_id: task.id, stage_id: stage.id, handed_at: at });
      return { task: await fullTaskView(db, asHandedOut(task, stage, email), stages, taskLinks(ctx)) };
    }
  }
  return reason ? { task: null, reason } : undefined;
}
