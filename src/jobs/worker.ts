/**
 * The worker loop: claim due jobs up to the concurrency, run each under a lease that is
 * renewed while the handler runs, record the outcome. Any number of workers (in any number
 * of processes) can share one queue; see claims.ts for why two never hold the same job.
 *
 * Under load the per-job costs are shared: jobs that end in the same turn free their slots
 * together and are replaced by one claim; renewals and outcomes go through bookkeeping.ts.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { systemClock, type Clock } from '../adapters/clock.js';
import type { Db, Engine } from '../store/db.js';
import { Bookkeeping, type Running, shortError } from './bookkeeping.js';
import {
  claimJobs,
  claimJobsIn,
  type Claim,
  type ClaimedJob,
  type ClaimRequest,
  type Outcome,
  type Refill,
  type RefillClaim,
} from './claims.js';
import { onJobsQueued } from './queue.js';
import { JOB_RECORDED, retryDelayMs, silentLogger, type JobLogger, type JobRegistry } from './registry.js';
import { DEFAULT_SWEEP_MS, pruneDoneJobs, type RetentionOptions, SWEEP_MAX_ROWS } from './retention.js';

export { shortError } from './bookkeeping.js';

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
  /** Deleting done jobs past their retention (retention.ts); none when omitted. */
  retention?: RetentionOptions;
  /** Upkeep of the store run now and then while the worker runs (one run of each at a time). */
  chores?: Chore[];
}

/** A periodic task of the worker's process: errors are logged, never thrown. */
export interface Chore {
  name: string;
  everyMs: number;
  run(): Promise<void>;
}

/** After this process queued jobs, poll this often until they show (their transaction commits). */
const HINTED_POLL_MS = 25;

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
  private readonly leases: ReadonlyMap<string, number>;
  private readonly active = new Map<Promise<void>, Running>();
  private readonly books: Bookkeeping;
  private started = false;
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private pollSoon = false;
  private pollAgain = false;
  private expiredCheckedAt = -Infinity;
  private hintedAt = -Infinity;
  private unsubscribe: (() => void) | undefined;
  private readonly retention: RetentionOptions | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private readonly chores: Chore[];
  private readonly choreTimers: NodeJS.Timeout[] = [];
  private readonly choresRunning = new Set<Promise<void>>();
  /** Jobs claimed inside a handler's transaction that has not committed yet: their slots are taken. */
  private reserved = 0;

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
    this.leases = new Map(this.registry.kinds().map((k) => [k, this.registry.optionsFor(k).leaseMs]));
    this.retention = opts.retention;
    this.chores = opts.chores ?? [];
    this.books = new Bookkeeping(this.db, this.engine, this.clock, this.log, () => this.active.values());
  }

  /** Starts polling; throws when a declared job kind has no handler. */
  start(): void {
    if (this.started) return;
    this.registry.assertComplete();
    this.started = true;
    this.stopping = false;
    // Every lease is renewed well before a third of the shortest one has passed.
    const shortest = Math.min(...this.leases.values());
    if (Number.isFinite(shortest)) this.books.startRenewing(Math.max(20, Math.floor(shortest / 3)));
    // Jobs this process queues are claimed at once, not at the next poll.
    this.unsubscribe = onJobsQueued(() => {
      this.hintedAt = Date.now();
      this.wake();
    });
    if (this.retention && this.retention.keepDoneMs > 0) {
      this.sweepTimer = setInterval(() => this.sweep(), this.retention.everyMs ?? DEFAULT_SWEEP_MS);
      this.sweepTimer.unref();
    }
    for (const chore of this.chores) {
      const timer = setInterval(() => this.runChore(chore), chore.everyMs);
      timer.unref();
      this.choreTimers.push(timer);
    }
    this.log.info({ workerId: this.id, concurrency: this.concurrency }, 'job worker started');
    this.wake();
  }

  /** Polls soon, e.g. right after this process queued a job; calls in one turn poll once. */
  wake(): void {
    if (!this.started || this.stopping) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    if (this.pollSoon) return;
    this.pollSoon = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    // setImmediate: the jobs that end in this turn free their slots first, and one claim
    // fills them all.
    setImmediate(() => {
      this.pollSoon = false;
      if (!this.started || this.stopping || this.polling) return;
      this.polling = this.poll().finally(() => {
        this.polling = undefined;
        this.scheduleNext();
      });
    });
  }

  /** Stops claiming and waits for running jobs, at most stopTimeoutMs; then aborts them. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.stopping = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    for (const timer of this.choreTimers.splice(0)) clearInterval(timer);
    await this.polling;
    await this.sweeping;
    await Promise.all(this.choresRunning);
    let bound: NodeJS.Timeout | undefined;
    // Jobs claimed inside a handler's transaction may start while the first ones are waited for.
    const drained = async () => {
      while (this.active.size > 0) await Promise.allSettled([...this.active.keys()]);
      return false;
    };
    const timedOut = await Promise.race([
      drained(),
      new Promise<boolean>((resolve) => (bound = setTimeout(() => resolve(true), this.stopTimeoutMs))),
    ]);
    clearTimeout(bound);
    // Their leases lapse once renewal stops, so another worker takes the jobs over.
    this.books.stopRenewing();
    if (timedOut) {
      for (const run of this.active.values()) run.controller.abort(new Error('job worker stopping'));
      this.log.warn({ workerId: this.id, running: this.active.size }, 'job worker stopped with jobs still running');
    }
    this.started = false;
    this.log.info({ workerId: this.id }, 'job worker stopped');
  }

  /**
   * Given to every handler (JobContext.refill): the transaction that ends jobs also claims the
   * jobs that take their slots, so a busy worker commits once per group of jobs, not twice.
   */
  private readonly refill: Refill = {
    claim: async (trx, ended, steered = false) => {
      const free = Math.max(0, this.freeSlots());
      const limit = free + ended;
      if (!this.started || this.stopping || limit <= 0) return NO_REFILL;
      // The free slots are reserved during the claim: another transaction's refill (PostgreSQL
      // runs several at once) must not count them too. The ended jobs' slots are still taken.
      this.reserved += free;
      let rows: ClaimedJob[];
      try {
        rows = await claimJobsIn(trx, this.engine, this.claimRequest(limit), steered);
      } finally {
        this.reserved -= free;
      }
      if (rows.length === 0) return NO_REFILL;
      this.reserved += rows.length;
      let settled = false;
      const settle = () => {
        if (settled) return false;
        settled = true;
        this.reserved -= rows.length;
        return true;
      };
      return {
        launch: () => {
          if (!settle()) return;
          // Claimed and committed: they run even if stop() began meanwhile (it waits for them).
          for (const row of rows) this.launch(row);
          if (rows.length === limit) this.pollAgain = true;
        },
        discard: () => void settle(),
      };
    },
  };

  private freeSlots(): number {
    return this.concurrency - this.active.size - this.reserved;
  }

  /** A claim of `limit` jobs; lapsed leases (rare: a dead worker) are looked for once per poll interval. */
  private claimRequest(limit: number): ClaimRequest {
    const now = this.clock.now();
    const includeExpired = now - this.expiredCheckedAt >= this.pollIntervalMs;
    if (includeExpired) this.expiredCheckedAt = now;
    return { workerId: this.id, leases: this.leases, limit, now, includeExpired };
  }

  get runningCount(): number {
    return this.active.size;
  }

  /** Deletes done jobs past the retention; one sweep at a time, errors logged, never thrown. */
  private sweep(): void {
    const keep = this.retention?.keepDoneMs ?? 0;
    if (this.sweeping || this.stopping || keep <= 0) return;
    this.sweeping = pruneDoneJobs(this.db, this.clock.now() - keep, { maxRows: SWEEP_MAX_ROWS })
      .then((deleted) => {
        if (deleted > 0) this.log.info({ workerId: this.id, deleted }, 'done jobs past their retention deleted');
      })
      .catch((err: unknown) =>
        this.log.error({ workerId: this.id, err: shortError(err) }, 'job retention sweep failed'),
      )
      .finally(() => (this.sweeping = undefined));
  }

  private readonly choreBusy = new Set<string>();

  private runChore(chore: Chore): void {
    if (this.stopping || this.choreBusy.has(chore.name)) return;
    this.choreBusy.add(chore.name);
    const running = chore
      .run()
      .catch((err: unknown) =>
        this.log.error({ workerId: this.id, chore: chore.name, err: shortError(err) }, 'chore failed'),
      )
      .finally(() => {
        this.choreBusy.delete(chore.name);
        this.choresRunning.delete(running);
      });
    this.choresRunning.add(running);
  }

  private scheduleNext(): void {
    if (this.stopping || !this.started) return;
    const again = this.pollAgain && this.active.size < this.concurrency;
    this.pollAgain = false;
    if (again) return this.wake();
    // Jobs queued here by a transaction that has not committed yet are not visible to a claim
    // on another connection (PostgreSQL): look again shortly, for one poll interval.
    const hinted = Date.now() - this.hintedAt < this.pollIntervalMs;
    this.timer = setTimeout(
      () => this.wake(),
      hinted ? Math.min(HINTED_POLL_MS, this.pollIntervalMs) : this.pollIntervalMs,
    );
  }

  private async poll(): Promise<void> {
    const free = this.freeSlots();
    if (free <= 0) return;
    try {
      // Lapsed leases are rare (a dead worker): looking for them once per poll interval is
      // enough, and spares a busy worker a second statement on every claim.
      const rows = await claimJobs(this.db, this.engine, this.claimRequest(free));
      for (const row of rows) this.launch(row);
      // A full batch means more may be due: look again as soon as a slot is free.
      if (rows.length === free) this.pollAgain = true;
    } catch (err) {
      // Back off to the poll interval rather than hammering a database that is failing.
      this.pollAgain = false;
      this.log.error({ workerId: this.id, err: shortError(err) }, 'job claim failed');
    }
  }

  private launch(row: ClaimedJob): void {
    const claim: Claim = { id: row.id, workerId: this.id, attempt: row.attempts };
    const leaseMs = this.registry.optionsFor(row.kind).leaseMs;
    const run: Running = { claim, leaseMs, controller: new AbortController(), handlerDone: false };
    const done: Promise<void> = this.execute(row, run).finally(() => {
      this.active.delete(done);
      this.wake();
    });
    this.active.set(done, run);
  }

  private async execute(row: ClaimedJob, run: Running): Promise<void> {
    const fields = { jobId: row.id, kind: row.kind, attempt: row.attempts, maxAttempts: row.max_attempts };
    const log = withFields(this.log, fields);
    const outcome = await this.runHandler(row, run, log);
    run.handlerDone = true;
    if (outcome === JOB_RECORDED) return;
    try {
      const recorded = await this.books.finish(run.claim, outcome);
      if (!recorded) log.warn({}, 'job lease lost before it finished; outcome dropped');
      else if (outcome.status === 'retry')
        log.warn({ err: outcome.error, runAt: new Date(outcome.runAt).toISOString() }, 'job failed; will retry');
      else if (outcome.status === 'failed') log.error({ err: outcome.error }, 'job failed; no attempts left');
    } catch (err) {
      log.error({ err: shortError(err) }, 'could not record job outcome');
    }
  }

  /** Runs the handler; answers the outcome to record, or JOB_RECORDED when it recorded it. */
  private async runHandler(row: ClaimedJob, run: Running, log: JobLogger): Promise<Outcome | typeof JOB_RECORDED> {
    // Re-claimed after its last attempt's worker died: that attempt counted, none is left.
    if (row.attempts > row.max_attempts) return { status: 'failed', error: 'lease expired during the last attempt' };
    const handler = this.registry.handlerFor(row.kind);
    if (!handler) return { status: 'failed', error: `no handler for job kind ${row.kind}` };
    try {
      const job = {
        id: row.id,
        kind: row.kind,
        payload: JSON.parse(row.payload) as unknown,
        attempt: row.attempts,
        maxAttempts: row.max_attempts,
      };
      const isLastAttempt = row.attempts >= row.max_attempts;
      const jc = { signal: run.controller.signal, isLastAttempt, log, claim: run.claim, refill: this.refill };
      const result = await handler(job, jc);
      return result === JOB_RECORDED ? JOB_RECORDED : { status: 'done' };
    } catch (err) {
      const error = shortError(err);
      if (row.attempts >= row.max_attempts) return { status: 'failed', error };
      const opts = this.registry.optionsFor(row.kind);
      return { status: 'retry', error, runAt: this.clock.now() + retryDelayMs(row.attempts, opts, this.random) };
    }
  }
}

const NO_REFILL: RefillClaim = { launch: () => undefined, discard: () => undefined };

function withFields(log: JobLogger, fields: object): JobLogger {
  return {
    info: (obj, msg) => log.info({ ...fields, ...obj }, msg),
    warn: (obj, msg) => log.warn({ ...fields, ...obj }, msg),
    error: (obj, msg) => log.error({ ...fields, ...obj }, msg),
  };
}
