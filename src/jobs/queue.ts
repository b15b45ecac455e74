/**
 * Putting jobs in the queue and looking at it. Enqueueing takes an executor so a service can
 * queue a job in the same transaction as the change that needs it: if that transaction rolls
 * back, the job never existed.
 */
import { sql } from 'kysely';
import { systemClock, type Clock } from '../adapters/clock.js';
import { newId } from '../ids.js';
import type { Executor } from '../store/db.js';
import type { JobRow } from '../store/schema.js';
import { insertInChunks } from '../store/chunks.js';
import type { PLUGIN_CALL_JOB, StageEntryJob, WEBHOOK_DELIVERY_JOB } from './kinds.js';
import {
  DEFAULT_JOB_OPTIONS,
  JOB_KINDS,
  type JobKind,
  type JobKindDeclarations,
  type JobKindOptions,
  type JobPayloads,
} from './registry.js';

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

export interface EnqueueOptions {
  /** Caller-chosen id (e.g. a delivery id that must stay stable); a clash is an error. */
  id?: string;
  /** Not before this time; default now. */
  runAt?: Date;
  /** Overrides the kind's maxAttempts for this one job. */
  maxAttempts?: number;
  clock?: Clock;
}

export type EnqueueJob<P extends object> = <K extends JobKind<P>>(
  executor: Executor,
  kind: K,
  payload: P[K],
  opts?: EnqueueOptions,
) => Promise<string>;

const queuedListeners = new Set<() => void>();

/**
 * Calls `listener` each time this process queues jobs, so that its workers claim them at once
 * instead of at their next poll. The jobs may not be committed yet (or ever): it is a hint.
 * Answers the function that unsubscribes.
 */
export function onJobsQueued(listener: () => void): () => void {
  queuedListeners.add(listener);
  return () => queuedListeners.delete(listener);
}

function jobsQueued(): void {
  for (const listener of queuedListeners) listener();
}

/** An enqueue function typed by a set of kinds, taking each kind's maxAttempts as default. */
export function makeEnqueue<P extends object>(
  declarations: JobKindDeclarations<P>,
  defaults: JobKindOptions = {},
): EnqueueJob<P> {
  const table: Readonly<Record<string, JobKindOptions>> = declarations;
  return (executor, kind, payload, opts = {}) => {
    const maxAttempts =
      opts.maxAttempts ?? table[kind]?.maxAttempts ?? defaults.maxAttempts ?? DEFAULT_JOB_OPTIONS.maxAttempts;
    return insertJob(executor, kind, payload, { ...opts, maxAttempts });
  };
}

/** Queues a job of one of the application's kinds; returns its id. */
export const enqueueJob: EnqueueJob<JobPayloads> = makeEnqueue(JOB_KINDS);

/** The untyped insert under every enqueue: one row, status queued. */
export async function insertJob(
  executor: Executor,
  kind: string,
  payload: unknown,
  opts: EnqueueOptions & { maxAttempts: number },
): Promise<string> {
  if (!Number.isInteger(opts.maxAttempts) || opts.maxAttempts < 1) {
    throw new Error('maxAttempts must be a positive integer');
  }
  const now = new Date((opts.clock ?? systemClock).now()).toISOString();
  const id = opts.id ?? newId();
  await executor
    .insertInto('jobs')
    .values({
      id,
      kind,
      payload: JSON.stringify(payload ?? null),
      status: 'queued',
      run_at: opts.runAt ? opts.runAt.toISOString() : now,
      attempts: 0,
      max_attempts: opts.maxAttempts,
      lease_owner: null,
      lease_until: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  jobsQueued();
  return id;
}

/** What the API shows of a job; the payload stays parsed but is never logged. */
export interface JobInfo {
  id: string;
  kind: string;
  status: JobStatus;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
  runAt: string;
  leaseOwner: string | null;
  leaseUntil: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export function toJobInfo(row: JobRow): JobInfo {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status as JobStatus,
    payload: JSON.parse(row.payload) as unknown,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    runAt: row.run_at,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function getJob(executor: Executor, id: string): Promise<JobInfo | undefined> {
  const row = await executor.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toJobInfo(row) : undefined;
}

export interface JobCount {
  kind: string;
  status: JobStatus;
  count: number;
}

/** Number of jobs per kind and status (only the pairs that exist), optionally for one kind. */
export async function countJobs(executor: Executor, filter: { kind?: string } = {}): Promise<JobCount[]> {
  let q = executor
    .selectFrom('jobs')
    .select(['kind', 'status', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy(['kind', 'status'])
    .orderBy('kind')
    .orderBy('status');
  if (filter.kind !== undefined) q = q.where('kind', '=', filter.kind);
  const rows = await q.execute();
  return rows.map((r) => ({ kind: r.kind, status: r.status as JobStatus, count: Number(r.count) }));
}

/**
 * Payloads of the jobs of `kind` still queued or running whose payload text contains `text`
 * (a re-run narrows by project id this way, then reads each payload). One pick per partial
 * index of 009-job-indexes, so the cost follows the live queue, not every job ever run.
 */
export async function unfinishedPayloads(executor: Executor, kind: string, text: string): Promise<string[]> {
  const pick = (status: 'queued' | 'running') =>
    executor
      .selectFrom('jobs')
      .select('payload')
      // A literal: the planner then knows the partial index applies.
      .where('status', '=', sql.lit(status))
      .where('kind', '=', kind)
      .where('payload', 'like', `%${text}%`);
  const rows = await pick('queued').unionAll(pick('running')).execute();
  return rows.map((r) => r.payload);
}

/**
 * Tasks of the project with a stage-entry job of `kind` (a webhook delivery, a plugin call) still
 * queued or being tried: the queue will send them anyway, so a re-run skips them. The payload is
 * JSON text, narrowed by a text match on the project id and then read exactly; only a re-run asks
 * this.
 */
export async function tasksWithPendingStageEntry(
  executor: Executor,
  kind: typeof WEBHOOK_DELIVERY_JOB | typeof PLUGIN_CALL_JOB,
  projectId: string,
): Promise<Set<string>> {
  const payloads = await unfinishedPayloads(executor, kind, projectId);
  const pending = new Set<string>();
  for (const payload of payloads) {
    const job = JSON.parse(payload) as StageEntryJob;
    if (job.projectId === projectId) pending.add(job.taskId);
  }
  return pending;
}

/** Failed jobs, most recently failed first. */
export async function findFailedJobs(
  executor: Executor,
  filter: { kind?: string; limit?: number; offset?: number } = {},
): Promise<JobInfo[]> {
  let q = executor
    .selectFrom('jobs')
    .selectAll()
    .where('status', '=', 'failed')
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit ?? 100)
    .offset(filter.offset ?? 0);
  if (filter.kind !== undefined) q = q.where('kind', '=', filter.kind);
  const rows = await q.execute();
  return rows.map(toJobInfo);
}

/**
 * Queues many jobs in bulk, inside the caller's transaction (a task move and the delivery it
 * needs commit together). Each kind's declared maxAttempts applies.
 */
export async function insertJobs(
  executor: Executor,
  jobs: readonly { id: string; kind: string; payload: unknown; runAt?: Date }[],
  clock: Clock = systemClock,
): Promise<void> {
  if (jobs.length === 0) return;
  const table: Readonly<Record<string, JobKindOptions>> = JOB_KINDS;
  const now = new Date(clock.now()).toISOString();
  const rows = jobs.map((job) => ({
    id: job.id,
    kind: job.kind,
    payload: JSON.stringify(job.payload ?? null),
    status: 'queued',
    run_at: job.runAt ? job.runAt.toISOString() : now,
    attempts: 0,
    max_attempts: table[job.kind]?.maxAttempts ?? DEFAULT_JOB_OPTIONS.maxAttempts,
    lease_owner: null,
    lease_until: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  }));
  await insertInChunks(executor, 'jobs', rows);
  jobsQueued();
}
