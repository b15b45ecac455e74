import type { BrushClasses } from './consensus/similarity.js';
import type { VoxelClasses } from './consensus/voxel-overlap.js';
import type { Clock } from '../adapters/clock.js';
import type { Sampler } from '../adapters/random.js';
import type { Stage } from '../schemas/stage.js';
import type { StageEntryJob } from '../jobs/kinds.js';
import type { Executor } from '../store/db.js';
import { AppError } from '../errors.js';
import type { Effects, ExitRecord, ProjectInfo, TaskFacts, TaskState, Trigger } from './types.js';

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
  /** A task's voxel layer (its `medicalBrushDataUrl`) read as class numbers; undefined when it has none. */
  readVoxels(url: string | null): Promise<VoxelClasses | undefined>;
}

/** How someone asks a task to leave the stage it rests in. */
export type ExitRequest =
  /** POST /annotate?nextStage=true; `byPlugin` when it is a plugin's answer (isPlugin=true). */
  | { kind: 'submit'; byPlugin: boolean }
  /** POST /review: a reviewer's decision. */
  | { kind: 'review'; decision: 'Accepted' | 'Rejected' }
  /** POST /project/{id}/forward: a lead or manager lets waiting tasks go on. */
  | { kind: 'forward' }
  /** POST /task/{id}/skip: the holder passes the task over. */
  | { kind: 'skip' }
  /** The receiver of the stage's webhook delivery answered 200. */
  | { kind: 'delivered' };

/** What a stage does with a request to leave it. */
export type ExitOutcome =
  /** The task leaves by `to`, its history entry saying `record`. */
  | { kind: 'leave'; to: string; record: ExitRecord }
  /** The task stays in the stage; `record` is still written to its history. */
  | { kind: 'stay'; record: ExitRecord }
  /** This stage type is not left this way: `reason` says why, in words. */
  | { kind: 'refuse'; reason: string };

/**
 * One stage kind's behaviour. Every stage type has exactly one; the engine calls `enter`
 * after the task's row already says it is in `stage`, and `exit` when someone asks a task
 * resting in `stage` to leave. `exit` only decides: the caller moves the task and writes it.
 * A stage that would leave by an output it does not have throws a 409 AppError.
 */
export interface StageBehavior {
  enter(task: TaskState, stage: Stage, env: RoutingEnv): Promise<EnterOutcome>;
  exit(stage: Stage, request: ExitRequest): ExitOutcome;
}

export const WAIT: EnterOutcome = { kind: 'wait' };

/** Leaves by the stage's output `index`, or a 409 naming the stage when it has none. */
export function leaveBy(stage: Stage, index: number, record: ExitRecord): ExitOutcome {
  const to = stage.next?.[index];
  if (to === undefined) throw new AppError('CONFLICT', `stage "${stage.id}" has no output ${index}`);
  return { kind: 'leave', to, record };
}

/** The refusal of a stage type that is not left by `request`. */
export function refuseExit(stage: Stage, request: ExitRequest): ExitOutcome {
  const reasons: Record<ExitRequest['kind'], string> = {
    submit: `a task in a ${stage.type} stage cannot be submitted`,
    review: `the task is in a ${stage.type} stage, not a Review stage`,
    forward: 'only Start and Hold stages are forwarded',
    skip: `the task is in a ${stage.type} stage; only Label tasks can be skipped`,
    delivered: `the task is in a ${stage.type} stage, not a Webhook stage`,
  };
  return { kind: 'refuse', reason: reasons[request.kind] };
}

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
export function queuesJobOnEntry(kind: string, exit: StageBehavior['exit'] = refuseExit): StageBehavior {
  return {
    exit,
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
