import type { Stage } from '../schemas/stage.js';
import type { RoutingEnv } from './stage-behavior.js';
import type { ExitRecord, TaskState } from './types.js';

/*
 * The history entry a task leaves behind in each stage. Its own module because both the engine
 * (every move) and the Consensus behaviour (a copy retired without moving) write one, and the
 * engine runs the behaviours: a shared helper below both keeps them out of a circle.
 */

/**
 * Writes the history entry of the stage the task is leaving. The entry keeps the answer as it
 * was when the task left, and the time reported for the stage.
 */
export function recordExit(task: TaskState, stage: Stage | undefined, env: RoutingEnv, exit: ExitRecord): void {
  const row = task.row;
  env.effects.history.push({
    id: env.newId(),
    task_id: row.id,
    project_id: row.project_id,
    asset_id: row.asset_id,
    stage_id: row.stage_id,
    stage_name: stage?.name ?? row.stage_id,
    stage_type: stage?.type ?? 'Unknown',
    answer: row.answer,
    duration: row.duration,
    completed_at: env.now(),
    completed_by: env.actor,
    review_status: exit.reviewStatus ?? null,
    is_skipped: exit.isSkipped ? 1 : 0,
    consensus_id: stage?.consensusId ?? null,
    trigger: exit.trigger,
  });
}
