/**
 * Job kinds and their handlers. The payload type of each kind is declared once, in
 * `JobPayloads`; the runtime list of kinds (with their retry and lease options) lives in a
 * declarations object checked against it, so a kind cannot be typed without being declared.
 * A worker refuses to start while a declared kind has no handler: a job nobody handles would
 * otherwise sit queued forever without anyone noticing.
 */

import { WEBHOOK_LIMITS } from '../schemas/stage.js';
import type { Claim, Refill } from './claims.js';
import type { AssetHeadersJob, PluginCallJob, StorageImportJob, WebhookDeliveryJob } from './kinds.js';

/**
 * Payload type of every job kind of the application, by kind name. Modules that add a kind
 * extend it (declaration merging) and add the kind to `JOB_KINDS`.
 */
export interface JobPayloads {
  'webhook.deliver': WebhookDeliveryJob;
  'plugin.call': PluginCallJob;
  'storage.import': StorageImportJob;
  'asset.headers': AssetHeadersJob;
}

export type JobKind<P extends object> = keyof P & string;

export interface JobKindOptions {
  /** Attempts before the job ends failed, counting the first. */
  maxAttempts?: number;
  /** How long a claim holds without renewal; a dead worker's job is free again after this. */
  leaseMs?: number;
  /** Delay before the first retry; each further retry doubles it (with jitter). */
  backoffBaseMs?: number;
  /** Ceiling of the retry delay. */
  backoffMaxMs?: number;
}

export type ResolvedJobKindOptions = Required<JobKindOptions>;

export type JobKindDeclarations<P extends object> = { readonly [K in JobKind<P>]: JobKindOptions };

/** The application's job kinds. */
export const JOB_KINDS: JobKindDeclarations<JobPayloads> = {
  // The handler itself stops after the stage's retryCount + 1 attempts (its settings may change
  // while a delivery waits); this ceiling leaves one spare for an attempt cut short by a crash.
  // A short lease hands a dead server's deliveries to the next worker within seconds.
  'webhook.deliver': { maxAttempts: WEBHOOK_LIMITS.retryMax + 2, leaseMs: 10_000 },
  // A plugin call is tried three times (backoff between); then the task waits with a warning.
  'plugin.call': { maxAttempts: 3, leaseMs: 10_000 },
  // A folder import skips what is already imported, so a retry (or a second claim after a
  // lapsed lease) finishes the work rather than repeating it.
  'storage.import': { maxAttempts: 3, leaseMs: 60_000 },
  // Each asset's read has its own deadline and byte cap, and one that fails leaves a warning on
  // its asset: a retry reads again only the assets still without a size or a warning.
  'asset.headers': { maxAttempts: 2, leaseMs: 120_000 },
};

export const DEFAULT_JOB_OPTIONS: ResolvedJobKindOptions = {
  maxAttempts: 5,
  leaseMs: 30_000,
  backoffBaseMs: 1_000,
  backoffMaxMs: 60 * 60_000,
};

/** pino-compatible subset, so the server's logger can be passed as is. */
export interface JobLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: JobLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface Job<T> {
  id: string;
  kind: string;
  payload: T;
  /** 1 on the first run; a run cut short by a dead worker counts too. */
  attempt: number;
  maxAttempts: number;
}

export interface JobContext {
  /** Aborted when the worker lost the job's lease or is being stopped past its bound. */
  signal: AbortSignal;
  isLastAttempt: boolean;
  /** Logger already carrying jobId, kind and attempt. */
  log: JobLogger;
  /** The claim this run holds: a handler may end the job in its own transaction (completeJobs). */
  claim: Claim;
  /** Claims the next jobs inside the transaction that ends this one (claims.ts Refill). */
  refill?: Refill;
}

/**
 * Answered by a handler that ended the job itself, with `completeJobs` in the transaction of
 * its own writes (or found the claim lost there): the worker then writes nothing more. Any
 * other return means success, and the worker records the job done.
 */
export const JOB_RECORDED = 'recorded';

export type JobHandler<T> = (job: Job<T>, ctx: JobContext) => Promise<void | typeof JOB_RECORDED>;

export class JobRegistry<P extends object = JobPayloads> {
  private readonly handlers = new Map<string, JobHandler<unknown>>();
  private readonly resolved = new Map<string, ResolvedJobKindOptions>();

  constructor(
    readonly declarations: JobKindDeclarations<P>,
    defaults: JobKindOptions = {},
  ) {
    const base = { ...DEFAULT_JOB_OPTIONS, ...stripUndefined(defaults) };
    for (const [kind, opts] of Object.entries<JobKindOptions>(declarations)) {
      const resolved = { ...base, ...stripUndefined(opts) };
      validateOptions(kind, resolved);
      this.resolved.set(kind, resolved);
    }
  }

  /** Registers the one handler of a declared kind. */
  handle<K extends JobKind<P>>(kind: K, handler: JobHandler<P[K]>): this {
    if (!this.resolved.has(kind)) throw new Error(`job kind "${kind}" is not declared`);
    if (this.handlers.has(kind)) throw new Error(`job kind "${kind}" already has a handler`);
    this.handlers.set(kind, (job, ctx) => handler(job as Job<P[K]>, ctx));
    return this;
  }

  /** Throws, naming them, when declared kinds have no handler. */
  assertComplete(): void {
    const missing = this.kinds().filter((k) => !this.handlers.has(k));
    if (missing.length > 0) {
      throw new Error(`job kinds without a handler: ${missing.join(', ')}`);
    }
  }

  kinds(): string[] {
    return [...this.resolved.keys()];
  }

  optionsFor(kind: string): ResolvedJobKindOptions {
    return this.resolved.get(kind) ?? { ...DEFAULT_JOB_OPTIONS };
  }

  handlerFor(kind: string): JobHandler<unknown> | undefined {
    return this.handlers.get(kind);
  }
}

/**
 * Delay before the retry that follows attempt `attempt`: exponential, capped, with "equal
 * jitter" (half fixed, half random) so retries spread out yet each gap stays longer than the
 * one before until the cap.
 */
export function retryDelayMs(
  attempt: number,
  opts: ResolvedJobKindOptions,
  random: () => number = Math.random,
): number {
  const exp = Math.min(opts.backoffMaxMs, opts.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(exp / 2 + (random() * exp) / 2);
}

function stripUndefined(opts: JobKindOptions): JobKindOptions {
  return Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
}

function validateOptions(kind: string, o: ResolvedJobKindOptions): void {
  const ok =
    Number.isInteger(o.maxAttempts) &&
    o.maxAttempts >= 1 &&
    o.leaseMs >= 100 &&
    o.backoffBaseMs >= 0 &&
    o.backoffMaxMs >= o.backoffBaseMs;
  if (!ok) throw new Error(`job kind "${kind}" has invalid options`);
}
