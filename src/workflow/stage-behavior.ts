import type { BrushClasses } from './consensus/similarity.js';
import type { Clock } from '../adapters/clock.js';
import type { Sampler } from '../adapters/random.js';
import type { Stage } from '../schemas/stage.js';
import type { StageEntryJob } from '../jobs/kinds.js';
import type { Executor } from '../store/db.js';
import type { Effects, ProjectInfo, TaskFacts, TaskState, Trigger } from './types.js';

/** What a stage does with a task that has just entered it. */
export type EnterOutcome =
  /** The task rests in the stage until a person, a job or an operation moves it. */
  | { kind: 'wait' }
  /** The task leaves at once by `to`; `record` writes a history entry for the exit. */
  | { kind: 'leave'; to: string; trigger: Trigger; record: boolean };

export interface RoutingEnv {
  trx: Executor;
  project: ProjectInfo;
  clock: Clock;
  /** [0, 1) draw for a key: RandomSample (repeatable with ANNOTARY_RANDOM_SEED). */
  random: Sampler;
  /** E-mail of whoever caused the move, null for the system. */
  actor: string | null;
  effects: Effects;
  facts(task: TaskState): TaskFacts;
  /** Routes another task (a consensus copy) into a stage, within the same run. */
  route(task: TaskState, to: string, trigger: Trigger): Promise<void>;
  newId(): string;
  now(): string;
  /** A task's brush layer (its `brushDataUrl`) read as class numbers; undefined when it has none. */
  readBrush(url: string | null): Promise<BrushClasses | undefined>;
}

/**
 * One stage kind's behaviour. Every stage type has exactly one; the engine calls `enter`
 * after the task's row already says it is in `stage`.
 */
export interface StageBehavior {
  enter(task: TaskState, stage: Stage, env: RoutingEnv): Promise<EnterOutcome>;
}

export const WAIT: EnterOutcome = { kind: 'wait' };

/** The status a task has while it rests in a stage of this type. */
export function statusFor(stageType: string): 'Completed' | 'Archived' | 'TODO' {
  if (stageType === 'Complete') return 'Completed';
  if (stageType === 'Archive') return 'Archived';
  return 'TODO';
}

/**
 * A stage that queues one job of `kind` when a task enters, in the same transaction as the move
 * (the job goes into the routing run's effects), and keeps the task waiting for it.
 */
export function queuesJobOnEntry(kind: string): StageBehavior {
  return {
    async enter(task, stage, env) {
      const payload: StageEntryJob = {
        projectId: task.row.project_id,
        taskId: task.row.id,
        stageId: stage.id,
        enteredAt: task.row.stage_entered_at,
      };
      env.effects.jobs.push({ id: env.newId(), kind, payload });
      return WAIT;
    },
  };
}
