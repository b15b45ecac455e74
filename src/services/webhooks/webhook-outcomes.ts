import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { completeJobs, transactionForClaim } from '../../jobs/claims.js';
import { MicroBatcher } from '../../jobs/micro-batcher.js';
import type { Claim, Refill, RefillClaim } from '../../jobs/claims.js';
import type { ProjectRow, TaskRow } from '../../store/schema.js';
import { insertInChunks } from '../../store/chunks.js';
import type { Engine, Executor } from '../../store/db.js';
import {
  deleteFailures,
  lockTasksById,
  type NewWebhookLog,
  upsertFailure,
  type WebhookFailureRow,
} from '../../store/repositories/webhook.repository.js';
import { moveTask } from '../../workflow/engine.js';
import { saveTasks } from '../../store/repositories/task-move.repository.js';
import type { RoutingRun } from '../../workflow/routing.js';
import { allowedExit, routingFor } from '../tasks/task-move.js';
import type { DeliverySubject } from './webhook-payload.js';

/**
 * What the attempts of webhook deliveries leave in the store, written together: deliveries
 * that end at about the same time share one transaction (a group commit: one disk sync on
 * PostgreSQL for the whole group). A delivered task moves on to next[0] through the engine (a
 * Logic or Webhook stage after it runs too) with its history entry and the attempt's log line;
 * a failure for good adds the row the stage status counts. A record that carries its job's
 * claim also ends the job in that transaction, so the job is done exactly when its effects are
 * written; a claim lost meanwhile (another worker owns the delivery now) leaves the task to it.
 */
export type AttemptRecord = (
  | /** An attempt that will be retried, or a dropped delivery: its log line. */
    { kind: 'log'; log: NewWebhookLog }
    /** No attempt left. */
  | { kind: 'failed'; log: NewWebhookLog; failure: WebhookFailureRow }
  /** 200: move the task on, if it still waits in the stage on the visit the delivery was for. */
  | { kind: 'delivered'; log: NewWebhookLog; subject: DeliverySubject; enteredAt: string }
) & {
  /** The job's claim, when this record is the job's end. */
  claim?: Claim;
  /** Its worker's refill: the transaction that ends the job claims the next ones too. */
  refill?: Refill;
};

export type Recorded =
  | { kind: 'written' }
  | { kind: 'moved' }
  /** Delivered, but the task had left the stage meanwhile: nothing moved. */
  | { kind: 'left' }
  /** Delivered, but the workflow would not take the task on: recorded as a failure for good. */
  | { kind: 'not-moved'; error: string }
  /** The job's claim was lost: only the attempt's log line was written. */
  | { kind: 'lost' };

type Delivered = Extract<AttemptRecord, { kind: 'delivered' }>;

async function writeAll(
  ctx: AppContext,
  trx: Executor,
  records: AttemptRecord[],
  refills: RefillClaim[],
  steered: boolean,
): Promise<Recorded[]> {
  // Jobs first: their rows are what concurrent workers contend for, and a claim found lost
  // here keeps its record from changing anything but the log.
  const claims = records.flatMap((r) => (r.claim ? [r.claim] : []));
  const ended = claims.length > 0 ? await completeJobs(trx, claims, ctx.clock.now()) : new Set<string>();
  const lost = (r: AttemptRecord) => r.claim !== undefined && !ended.has(r.claim.id);
  await insertInChunks(
    trx,
    'webhook_logs',
    records.map((r) => r.log),
  );
  for (const r of records) if (r.kind === 'failed' && !lost(r)) await upsertFailure(trx, r.failure);
  const delivered = records.flatMap((r) => (r.kind === 'delivered' && !lost(r) ? [r] : []));
  const moved = delivered.length > 0 ? await moveDelivered(ctx, trx, delivered) : new Set<string>();
  // Last: the jobs that take the ended jobs' slots, claimed in this transaction (one commit
  // for the group instead of two); launched by the caller once it has committed.
  const endedBy = new Map<Refill, number>();
  for (const r of records) {
    if (r.refill && r.claim && !lost(r)) endedBy.set(r.refill, (endedBy.get(r.refill) ?? 0) + 1);
  }
  for (const [refill, n] of endedBy) refills.push(await refill.claim(trx, n, steered));
  return records.map((r): Recorded => {
    if (lost(r)) return { kind: 'lost' };
    if (r.kind !== 'delivered') return { kind: 'written' };
    return moved.has(r.subject.task.id) ? { kind: 'moved' } : { kind: 'left' };
  });
}

/** Moves the delivered tasks still waiting on their visit; answers the ids moved. */
async function moveDelivered(ctx: AppContext, trx: Executor, delivered: Delivered[]): Promise<Set<string>> {
  const tasks = await lockTasksById(
    trx,
    delivered.map((r) => r.subject.task.id),
  );
  const current = new Map(tasks.map((t) => [t.id, t]));
  const runs = new Map<string, RoutingRun>();
  const runFor = (project: ProjectRow) => {
    const run = runs.get(project.id) ?? routingFor(trx, ctx, project, null);
    runs.set(project.id, run);
    return run;
  };
  const moves: { before: TaskRow; after: TaskRow }[] = [];
  for (const r of delivered) {
    const task = current.get(r.subject.task.id);
    if (!task || !waitsOnVisit(task, r.subject.stage.id, r.enteredAt)) continue;
    // Taken out so that a second record of the same task does not move it twice.
    current.delete(task.id);
    const state = { row: { ...task }, isNew: false };
    // The stage's behaviour says where a delivered task goes, as it does for every other exit.
    const exit = allowedExit(r.subject.stage, { kind: 'delivered' });
    if (exit.kind === 'leave') await moveTask(state, exit.to, runFor(r.subject.project).env, exit.record);
    else throw new Error(`a ${r.subject.stage.type} stage keeps delivered tasks`);
    moves.push({ before: task, after: state.row });
  }
  await saveTasks(trx, moves);
  for (const run of runs.values()) await run.flushEffects();
  const moved = moves.map((m) => m.after.id);
  await deleteFailures(trx, moved);
  return new Set(moved);
}

function waitsOnVisit(task: TaskRow, stageId: string, enteredAt: string): boolean {
  return task.deleted === 0 && task.stage_id === stageId && task.stage_entered_at === enteredAt;
}

/** A delivered task the workflow refused: the attempt's line says why, and it counts as failed. */
function notMoved(r: Delivered, err: AppError, failedAt: string): AttemptRecord {
  const error = `the task could not move on: ${err.message}`;
  const s = r.subject;
  return {
    kind: 'failed',
    log: { ...r.log, error },
    failure: {
      task_id: s.task.id,
      project_id: s.project.id,
      stage_id: s.stage.id,
      entered_at: r.enteredAt,
      delivery_id: r.log.delivery_id,
      error: `HTTP 200, but ${error}`,
      failed_at: failedAt,
    },
    ...(r.claim ? { claim: r.claim } : {}),
    ...(r.refill ? { refill: r.refill } : {}),
  };
}

/**
 * How many batches of deliveries may be read, and written, at once. SQLite runs one statement
 * at a time in this process: one batch. On PostgreSQL a batch's transaction is a dozen round
 * trips and a commit that mostly wait on the server (a profile of the server at 530 tasks/s:
 * busy 4.1 s, idle 5.4 s); batches on their own connections overlap those waits. The groups
 * touch disjoint rows (their own jobs and tasks; the claim skips locked rows; the kept counts
 * are appended deltas), so they do not wait on each other.
 */
export function parallelBatches(engine: Engine): { reads: number; writes: number } {
  return engine === 'postgres' ? { reads: 2, writes: 3 } : { reads: 1, writes: 1 };
}

/** Writes attempt records in batches; each call resolves with its own record's fate. */
export function attemptRecorder(ctx: AppContext): MicroBatcher<AttemptRecord, Recorded> {
  const db = ctx.store.db;
  /** Writes records in one transaction; the jobs it claimed start once it has committed. */
  const write = async (records: AttemptRecord[]): Promise<Recorded[]> => {
    const refills: RefillClaim[] = [];
    try {
      const out = await transactionForClaim(db, ctx.store.engine, (trx, steered) =>
        writeAll(ctx, trx, records, refills, steered),
      );
      for (const r of refills) r.launch();
      return out;
    } catch (err) {
      for (const r of refills) r.discard();
      throw err;
    }
  };
  const one = async (r: AttemptRecord): Promise<Recorded | Error> => {
    try {
      return (await write([r]))[0] as Recorded;
    } catch (err) {
      if (r.kind !== 'delivered' || !(err instanceof AppError))
        return err instanceof Error ? err : new Error(String(err));
      // Sending again cannot fix a workflow that will not take the task: record a failure.
      const failed = notMoved(r, err, new Date(ctx.clock.now()).toISOString());
      const [written] = await write([failed]);
      return written?.kind === 'lost' ? written : { kind: 'not-moved', error: failed.log.error ?? '' };
    }
  };
  return new MicroBatcher<AttemptRecord, Recorded>(
    async (records) => {
      if (records.length === 1) return [await one(records[0] as AttemptRecord)];
      try {
        return await write(records);
      } catch {
        // One record spoiled the batch (a workflow that refuses a task, a deadlock): alone, each
        // one either succeeds or fails by itself.
        const out: (Recorded | Error)[] = [];
        for (const r of records) out.push(await one(r));
        return out;
      }
    },
    undefined,
    parallelBatches(ctx.store.engine).writes,
  );
}
