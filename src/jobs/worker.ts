/**
 * The worker loop: claim due jobs up to the concurrency, run each under a lease that is
 * renewed while the handler runs, record the outcome. Any number of workers (in any number
 * of processes) can share one queue; see claims.ts for why two never hold the same job.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { systemClock, type Clock } from '../adapters/clock.js';
import type { Db, Engine } from '../store/db.js';
import type { JobRow } from '../store/schema.js';
import { claimJobs, finishJob, renewLease, type Claim, type Outcome } from './claims.js';
import {
  retryDelayMs,
  silentLogger,
  type JobLogger,
  type JobRegistry,
  type ResolvedJobKindOptions,
} from './registry.js';

export interface JobWorkerOptions<P extends object> {
  store: { db: Db; engine: Engine };
  registry: JobRegistry<P>;
  /** Written to lease_owner; default host:pid:random. */
  workerId?: string;
  concurrency?: number;
  /** Wait between polls when the queue looked empty; wake() cuts it short. */
  pollIntervalMs?: number;
  /** How long stop() waits for running handlers before aborting them. */
  stopTimeoutMs?: number;
  clock?: Clock;
  /** [0, 1) source of retry jitter. */
  random?: () => number;
  logger?: JobLogger;
}

interface Running {
  controller: AbortController;
  renewTimer: NodeJS.Timeout | undefined;
  /** Set once the handler returned: renewal stops and a lost lease is no longer news. */
  handlerDone: boolean;
}

const MAX_ERROR_LENGTH = 500;

export class JobWorker<P extends object = object> {
  readonly id: string;
  private readonly db: Db;
  private readonly engine: Engine;
  private readonly registry: JobRegistry<P>;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly stopTimeoutMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly log: JobLogger;
  private readonly active = new Map<Promise<void>, Running>();
  private started = false;
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private pollAgain = false;

  constructor(opts: JobWorkerOptions<P>) {
    this.id = opts.workerId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.db = opts.store.db;
    this.engine = opts.store.engine;
    this.registry = opts.registry;
    this.concurrency = Math.max(1, opts.concurrency ?? 4);
    this.pollIntervalMs = opts.pollIntervalMs ?? 1_000;
    this.stopTimeoutMs = opts.stopTimeoutMs ?? 30_000;
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? Math.random;
    this.log = opts.logger ?? silentLogger;
  }

  /** Starts polling; throws when a declared job kind has no handler. */
  start(): void {
    if (this.started) return;
    this.registry.assertComplete();
    this.started = true;
    this.stopping = false;
    this.log.info({ workerId: this.id, concurrency: this.concurrency }, 'job worker started');
    this.wake();
  }

  /** Polls now, e.g. right after this process queued a job. */
  wake(): void {
    if (!this.started || this.stopping) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.polling = this.poll().finally(() => {
      this.polling = undefined;
      this.scheduleNext();
    });
  }

  /** Stops claiming and waits for running jobs, at most stopTimeoutMs; then aborts them. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.stopping = true;
    clearTimeout(this.timer);
    await this.polling;
    let bound: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      Promise.allSettled(this.active.keys()).then(() => false),
      new Promise<boolean>((resolve) => (bound = setTimeout(() => resolve(true), this.stopTimeoutMs))),
    ]);
    clearTimeout(bound);
    if (timedOut) {
      // Their leases lapse once renewal stops, so another worker takes the jobs over.
      for (const run of this.active.values()) {
        clearInterval(run.renewTimer);
        run.controller.abort(new Error('job worker stopping'));
      }
      this.log.warn({ workerId: this.id, running: this.active.size }, 'job worker stopped with jobs still running');
    }
    this.started = false;
    this.log.info({ workerId: this.id }, 'job worker stopped');
  }

  get runningCount(): number {
    return this.active.size;
  }

  private scheduleNext(): void {
    if (this.stopping || !this.started) return;
    const again = this.pollAgain && this.active.size < this.concurrency;
    this.pollAgain = false;
    if (again) return this.wake();
    this.timer = setTimeout(() => this.wake(), this.pollIntervalMs);
  }

  private async poll(): Promise<void> {
    const free = this.concurrency - this.active.size;
    if (free <= 0) return;
    const leases = new Map(this.registry.kinds().map((k) => [k, this.registry.optionsFor(k).leaseMs]));
    try {
      const rows = await claimJobs(this.db, this.engine, {
        workerId: this.id,
        leases,
        limit: free,
        now: this.clock.now(),
      });
      for (const row of rows) this.launch(row);
      // A full batch means more may be due: look again as soon as a slot is free.
      if (rows.length === free) this.pollAgain = true;
    } catch (err) {
      // Back off to the poll interval rather than hammering a database that is failing.
      this.pollAgain = false;
      this.log.error({ workerId: this.id, err: shortError(err) }, 'job claim failed');
    }
  }

  private launch(row: JobRow): void {
    const opts = this.registry.optionsFor(row.kind);
    const claim: Claim = { id: row.id, workerId: this.id, attempt: row.attempts };
    const run: Running = { controller: new AbortController(), renewTimer: undefined, handlerDone: false };
    const renewEvery = Math.max(20, Math.floor(opts.leaseMs / 3));
    run.renewTimer = setInterval(() => void this.renew(claim, opts.leaseMs, run), renewEvery);
    const done: Promise<void> = this.execute(row, claim, opts, run).finally(() => {
      clearInterval(run.renewTimer);
      this.active.delete(done);
      this.wake();
    });
    this.active.set(done, run);
  }

  private async renew(claim: Claim, leaseMs: number, run: Running): Promise<void> {
    if (run.controller.signal.aborted || run.handlerDone) return;
    try {
      const held = await renewLease(this.db, claim, this.clock.now(), leaseMs);
      // The outcome may have been recorded while the renewal was in flight: that is no loss.
      if (!held && !run.handlerDone) {
        this.log.warn({ jobId: claim.id, attempt: claim.attempt }, 'job lease lost; aborting handler');
        run.controller.abort(new Error('job lease lost'));
      }
    } catch (err) {
      // A passing database error: the lease may still hold, try again on the next tick.
      this.log.warn({ jobId: claim.id, err: shortError(err) }, 'job lease renewal failed');
    }
  }

  private async execute(row: JobRow, claim: Claim, opts: ResolvedJobKindOptions, run: Running): Promise<void> {
    const fields = { jobId: row.id, kind: row.kind, attempt: row.attempts, maxAttempts: row.max_attempts };
    const log = withFields(this.log, fields);
    const handler = this.registry.handlerFor(row.kind);
    let outcome: Outcome;
    if (row.attempts > row.max_attempts) {
      // Re-claimed after its last attempt's worker died: that attempt counted, none is left.
      outcome = { status: 'failed', error: 'lease expired during the last attempt' };
    } else if (!handler) {
      outcome = { status: 'failed', error: `no handler for job kind ${row.kind}` };
    } else {
      try {
        const job = {
          id: row.id,
          kind: row.kind,
          payload: JSON.parse(row.payload) as unknown,
          attempt: row.attempts,
          maxAttempts: row.max_attempts,
        };
        await handler(job, { signal: run.controller.signal, isLastAttempt: row.attempts >= row.max_attempts, log });
        outcome = { status: 'done' };
      } catch (err) {
        const error = shortError(err);
        outcome =
          row.attempts >= row.max_attempts
            ? { status: 'failed', error }
            : { status: 'retry', error, runAt: this.clock.now() + retryDelayMs(row.attempts, opts, this.random) };
      }
    }
    run.handlerDone = true;
    clearInterval(run.renewTimer);
    try {
      const recorded = await finishJob(this.db, claim, this.clock.now(), outcome);
      if (!recorded) log.warn({}, 'job lease lost before it finished; outcome dropped');
      else if (outcome.status === 'retry')
        log.warn({ err: outcome.error, runAt: new Date(outcome.runAt).toISOString() }, 'job failed; will retry');
      else if (outcome.status === 'failed') log.error({ err: outcome.error }, 'job failed; no attempts left');
    } catch (err) {
      log.error({ err: shortError(err) }, 'could not record job outcome');
    }
  }
}

/** One line, no stack, bounded: last_error is shown to API clients and kept in logs. */
export function shortError(err: unknown): string {
  let text: string;
  if (err instanceof Error) text = err.name && err.name !== 'Error' ? `${err.name}: ${err.message}` : err.message;
  else text = typeof err === 'string' ? err : 'non-error value thrown';
  text = text.replace(/\s+/g, ' ').trim() || 'unknown error';
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}

function withFields(log: JobLogger, fields: object): JobLogger {
  return {
    info: (obj, msg) => log.info({ ...fields, ...obj }, msg),
    warn: (obj, msg) => log.warn({ ...fields, ...obj }, msg),
    error: (obj, msg) => log.error({ ...fields, ...obj }, msg),
  };
}
