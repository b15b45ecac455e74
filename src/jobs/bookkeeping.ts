/**
 * The store side of running jobs, shared by all the jobs a worker runs at once: one timer and
 * one statement renew every running job's lease; the outcomes of jobs that end together are
 * written together, every success in one statement.
 */
import type { Clock } from '../adapters/clock.js';
import type { Db, Engine } from '../store/db.js';
import { completeJobs, finishJob, renewLeases, type Claim, type Outcome } from './claims.js';
import { MicroBatcher } from './micro-batcher.js';
import type { JobLogger } from './registry.js';

export interface Running {
  claim: Claim;
  leaseMs: number;
  controller: AbortController;
  /** Set once the handler returned: renewal stops and a lost lease is no longer news. */
  handlerDone: boolean;
}

interface Finish {
  claim: Claim;
  outcome: Outcome;
}

export class Bookkeeping {
  private renewTimer: NodeJS.Timeout | undefined;
  private renewing = false;
  private readonly finisher: MicroBatcher<Finish, boolean>;

  constructor(
    private readonly db: Db,
    private readonly engine: Engine,
    private readonly clock: Clock,
    private readonly log: JobLogger,
    private readonly running: () => Iterable<Running>,
  ) {
    this.finisher = new MicroBatcher((batch) => this.finishAll(batch));
  }

  /** Renews leases every `everyMs` until stopped. */
  startRenewing(everyMs: number): void {
    clearInterval(this.renewTimer);
    this.renewTimer = setInterval(() => void this.renewAll(), everyMs);
  }

  stopRenewing(): void {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
  }

  /** Records how a job ended; false when its claim was lost and nothing was written. */
  finish(claim: Claim, outcome: Outcome): Promise<boolean> {
    return this.finisher.submit({ claim, outcome });
  }

  /** One statement per lease length renews every running job; a claim not held is aborted. */
  private async renewAll(): Promise<void> {
    if (this.renewing) return;
    const byLease = new Map<number, Running[]>();
    for (const run of this.running()) {
      if (run.handlerDone || run.controller.signal.aborted) continue;
      byLease.set(run.leaseMs, [...(byLease.get(run.leaseMs) ?? []), run]);
    }
    this.renewing = true;
    try {
      for (const [leaseMs, runs] of byLease) {
        const claims = runs.map((r) => r.claim);
        const held = await renewLeases(this.db, this.engine, claims, this.clock.now(), leaseMs);
        for (const run of runs) {
          // The outcome may have been recorded while the renewal was in flight: no loss.
          if (held.has(run.claim.id) || run.handlerDone) continue;
          this.log.warn({ jobId: run.claim.id, attempt: run.claim.attempt }, 'job lease lost; aborting handler');
          run.controller.abort(new Error('job lease lost'));
        }
      }
    } catch (err) {
      // A passing database error: the leases may still hold, try again on the next tick.
      this.log.warn({ err: shortError(err) }, 'job lease renewal failed');
    } finally {
      this.renewing = false;
    }
  }

  /** Outcomes of jobs that ended together: every success in one statement, the rest alone. */
  private async finishAll(batch: Finish[]): Promise<(boolean | Error)[]> {
    const now = this.clock.now();
    const done = batch.filter((f) => f.outcome.status === 'done').map((f) => f.claim);
    const ended = done.length > 0 ? await completeJobs(this.db, done, now) : new Set<string>();
    const out: (boolean | Error)[] = [];
    for (const f of batch) {
      if (f.outcome.status === 'done') out.push(ended.has(f.claim.id));
      else out.push(await finishJob(this.db, f.claim, now, f.outcome).catch((err: unknown) => toError(err)));
    }
    return out;
  }
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

const MAX_ERROR_LENGTH = 500;

/** One line, no stack, bounded: last_error is shown to API clients and kept in logs. */
export function shortError(err: unknown): string {
  let text: string;
  if (err instanceof Error) text = err.name && err.name !== 'Error' ? `${err.name}: ${err.message}` : err.message;
  else text = typeof err === 'string' ? err : 'non-error value thrown';
  text = text.replace(/\s+/g, ' ').trim() || 'unknown error';
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}
