import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import type { ProjectRow, TaskRow } from '../store/schema.js';
import { insertInChunks } from '../store/chunks.js';
import type { Executor } from '../store/db.js';
import {
  deleteFailures,
  type NewWebhookLog,
  upsertFailure,
  type WebhookFailureRow,
} from '../store/repositories/webhook.repository.js';
import { moveTask } from '../workflow/engine.js';
import { type RoutingRun, saveTask } from '../workflow/routing.js';
import { MicroBatcher } from './micro-batcher.js';
import { output, routingFor } from './task-move.js';
import type { DeliverySubject } from './webhook-payload.js';

/**
 * What the attempts of webhook deliveries leave in the store, written together: deliveries
 * that end at about the same time share one transaction (a group commit), which is what keeps
 * a Webhook stage fast on PostgreSQL and SQLite alike. A delivered task moves on to next[0]
 * through the engine (a Logic or Webhook stage after it runs too) with its history entry and
 * the attempt's log line; a failure for good adds the row the stage status counts.
 */
export type AttemptRecord =
  /** An attempt that will be retried, or a dropped delivery: its log line. */
  | { kind: 'log'; log: NewWebhookLog }
  /** No attempt left. */
  | { kind: 'failed'; log: NewWebhookLog; failure: WebhookFailureRow }
  /** 200: move the task on, if it still waits in the stage on the visit the delivery was for. */
  | { kind: 'delivered'; log: NewWebhookLog; subject: DeliverySubject; enteredAt: string };

export type Recorded =
  | { kind: 'written' }
  | { kind: 'moved' }
  /** Delivered, but the task had left the stage meanwhile: nothing moved. */
  | { kind: 'left' }
  /** Delivered, but the workflow would not take the task on: recorded as a failure for good. */
  | { kind: 'not-moved'; error: string };

async function writeAll(ctx: AppContext, trx: Executor, records: AttemptRecord[]): Promise<Recorded[]> {
  await insertInChunks(
    trx,
    'webhook_logs',
    records.map((r) => r.log),
  );
  for (const r of records) if (r.kind === 'failed') await upsertFailure(trx, r.failure);
  const delivered = records.flatMap((r) => (r.kind === 'delivered' ? [r] : []));
  const moved = new Set<string>();
  if (delivered.length > 0) {
    let q = trx
      .selectFrom('tasks')
      .selectAll()
      .where(
        'id',
        'in',
        delivered.map((r) => r.subject.task.id),
      )
      .orderBy('id');
    // Locks the rows: a requeue committing meanwhile waits, or is seen, never lost.
    if (ctx.store.engine === 'postgres') q = q.forUpdate();
    const current = new Map((await q.execute()).map((t) => [t.id, t]));
    const runs = new Map<string, RoutingRun>();
    const runFor = (project: ProjectRow) => {
      const run = runs.get(project.id) ?? routingFor(trx, ctx, project, null);
      runs.set(project.id, run);
      return run;
    };
    for (const r of delivered) {
      const task = current.get(r.subject.task.id);
      if (!task || !waitsOnVisit(task, r.subject.stage.id, r.enteredAt) || moved.has(task.id)) continue;
      const state = { row: { ...task }, isNew: false };
      await moveTask(state, output(r.subject.stage, 0), runFor(r.subject.project).env, { trigger: 'webhook' });
      await saveTask(trx, state.row);
      moved.add(task.id);
    }
    for (const run of runs.values()) await run.flushEffects();
    await deleteFailures(trx, [...moved]);
  }
  return records.map((r): Recorded => {
    if (r.kind !== 'delivered') return { kind: 'written' };
    return moved.has(r.subject.task.id) ? { kind: 'moved' } : { kind: 'left' };
  });
}

function waitsOnVisit(task: TaskRow, stageId: string, enteredAt: string): boolean {
  return task.deleted === 0 && task.stage_id === stageId && task.stage_entered_at === enteredAt;
}

/** A delivered task the workflow refused: the attempt's line says why, and it counts as failed. */
function notMoved(r: Extract<AttemptRecord, { kind: 'delivered' }>, err: AppError, failedAt: string): AttemptRecord {
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
  };
}

/** Writes attempt records in batches; each call resolves with its own record's fate. */
export function attemptRecorder(ctx: AppContext): MicroBatcher<AttemptRecord, Recorded> {
  const db = ctx.store.db;
  const one = async (r: AttemptRecord): Promise<Recorded | Error> => {
    try {
      return (await db.transaction().execute((trx) => writeAll(ctx, trx, [r])))[0] as Recorded;
    } catch (err) {
      if (r.kind !== 'delivered' || !(err instanceof AppError))
        return err instanceof Error ? err : new Error(String(err));
      // Sending again cannot fix a workflow that will not take the task: record a failure.
      const failed = notMoved(r, err, new Date(ctx.clock.now()).toISOString());
      await db.transaction().execute((trx) => writeAll(ctx, trx, [failed]));
      return { kind: 'not-moved', error: failed.log.error ?? '' };
    }
  };
  return new MicroBatcher<AttemptRecord, Recorded>(async (records) => {
    if (records.length === 1) return [await one(records[0] as AttemptRecord)];
    try {
      return await db.transaction().execute((trx) => writeAll(ctx, trx, records));
    } catch {
      // One record spoiled the batch (a workflow that refuses a task, a deadlock): alone, each
      // one either succeeds or fails by itself.
      const out: (Recorded | Error)[] = [];
      for (const r of records) out.push(await one(r));
      return out;
    }
  });
}
