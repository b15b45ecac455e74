import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/adapters/clock.js';
import { openStore, type Store } from '../../src/store/db.js';
import {
  countJobs,
  DEFAULT_JOB_OPTIONS,
  findFailedJobs,
  getJob,
  JobRegistry,
  JobWorker,
  makeEnqueue,
  type Job,
  type JobInfo,
  type JobWorkerOptions,
} from '../../src/jobs/index.js';
import { ENGINES, makeStore, type TestStore } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

interface Echo {
  'test.echo': { n: number };
}

const jobIs = (db: Store['db'], id: string, check: (j: JobInfo) => boolean) => async () => {
  const job = await getJob(db, id);
  return job !== undefined && check(job);
};

describe.each(ENGINES)('durable jobs on %s', (engine) => {
  let store: TestStore;
  const workers: JobWorker<object>[] = [];
  const closers: (() => Promise<unknown>)[] = [];

  beforeEach(async () => {
    store = await makeStore(engine);
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop();
    for (const close of closers.splice(0)) await close();
    await store.cleanup();
  });

  function startWorker<P extends object>(opts: Partial<JobWorkerOptions<P>> & { registry: JobRegistry<P> }) {
    const worker = new JobWorker<P>({ store, pollIntervalMs: 20, ...opts });
    workers.push(worker as JobWorker<object>);
    worker.start();
    return worker;
  }

  function echoKind(onRun: (job: Job<{ n: number }>) => void) {
    const kinds = { 'test.echo': {} };
    const registry = new JobRegistry<Echo>(kinds).handle('test.echo', async (job) => onRun(job));
    return { registry, enqueue: makeEnqueue<Echo>(kinds) };
  }

  it('runs a committed job once, woken without waiting for the poll interval', async () => {
    const runs: Job<{ n: number }>[] = [];
    const { registry, enqueue } = echoKind((job) => runs.push(job));
    const worker = startWorker({ registry, pollIntervalMs: 60_000 });

    const id = await store.db.transaction().execute((trx) => enqueue(trx, 'test.echo', { n: 1 }));
    worker.wake();
    await waitFor(
      jobIs(store.db, id, (j) => j.status === 'done'),
      'the job to be done',
    );
    // A second job proves the worker went on polling without touching the first one again.
    const next = await enqueue(store.db, 'test.echo', { n: 2 });
    worker.wake();
    await waitFor(
      jobIs(store.db, next, (j) => j.status === 'done'),
      'the second job',
    );

    expect(runs.map((r) => [r.id, r.payload, r.attempt, r.maxAttempts])).toEqual([
      [id, { n: 1 }, 1, DEFAULT_JOB_OPTIONS.maxAttempts],
      [next, { n: 2 }, 1, DEFAULT_JOB_OPTIONS.maxAttempts],
    ]);
    const row = await getJob(store.db, id);
    expect(row).toMatchObject({ attempts: 1, leaseOwner: worker.id, leaseUntil: null, lastError: null });
  });

  it('retries a throwing handler with growing delays until it succeeds', async () => {
    let t = Date.parse('2031-01-01T00:00:00.000Z');
    const clock: Clock = { now: () => t };
    const kinds = { 'test.echo': { backoffBaseMs: 1_000, maxAttempts: 3 } };
    const seen: { at: number; attempt: number; last: boolean }[] = [];
    const registry = new JobRegistry<Echo>(kinds).handle('test.echo', async (job, ctx) => {
      seen.push({ at: clock.now(), attempt: job.attempt, last: ctx.isLastAttempt });
      if (job.attempt < 3) throw new Error(`receiver down ${job.attempt}`);
    });
    const id = await makeEnqueue<Echo>(kinds)(store.db, 'test.echo', { n: 1 }, { clock });
    startWorker({ registry, clock });

    const runAts: number[] = [t];
    for (const attempt of [1, 2]) {
      await waitFor(
        jobIs(store.db, id, (j) => j.attempts === attempt && j.status === 'queued'),
        `retry ${attempt}`,
      );
      const job = await getJob(store.db, id);
      expect(job?.lastError).toBe(`receiver down ${attempt}`);
      runAts.push(Date.parse(job?.runAt ?? ''));
      // The clock stands still, so the job must wait however often the worker polls.
      expect(seen).toHaveLength(attempt);
      t = runAts[attempt] ?? t;
    }
    await waitFor(
      jobIs(store.db, id, (j) => j.status === 'done'),
      'the job to succeed',
    );

    const [r0 = 0, r1 = 0, r2 = 0] = runAts;
    expect(r1 - r0).toBeGreaterThanOrEqual(500);
    expect(r1 - r0).toBeLessThan(1_000);
    expect(r2 - r1).toBeGreaterThanOrEqual(1_000);
    expect(r2 - r1).toBeLessThan(2_000);
    expect(seen).toEqual([
      { at: r0, attempt: 1, last: false },
      { at: r1, attempt: 2, last: false },
      { at: r2, attempt: 3, last: true },
    ]);
  });

  it('ends failed with a short last_error when attempts run out', async () => {
    const kinds = { 'test.echo': { backoffBaseMs: 5 } };
    const lastFlags: boolean[] = [];
    const registry = new JobRegistry<Echo>(kinds).handle('test.echo', async (job, ctx) => {
      lastFlags.push(ctx.isLastAttempt);
      throw new Error(`receiver said no ${job.attempt}\n${'x'.repeat(5_000)}`);
    });
    const id = await makeEnqueue<Echo>(kinds)(store.db, 'test.echo', { n: 1 }, { maxAttempts: 3 });
    startWorker({ registry });

    await waitFor(
      jobIs(store.db, id, (j) => j.status === 'failed'),
      'the job to fail',
    );
    const job = await getJob(store.db, id);
    expect(job).toMatchObject({ attempts: 3, maxAttempts: 3, leaseUntil: null });
    expect(job?.lastError?.startsWith('receiver said no 3 xxx')).toBe(true);
    expect(job?.lastError?.length).toBeLessThanOrEqual(500);
    expect(job?.lastError).not.toMatch(/\n|\bat .*:\d+:\d+/);
    expect(lastFlags).toEqual([false, false, true]);
    expect((await findFailedJobs(store.db)).map((j) => j.id)).toEqual([id]);
    expect(await countJobs(store.db)).toEqual([{ kind: 'test.echo', status: 'failed', count: 1 }]);
  });

  it('never runs a job enqueued in a rolled-back transaction', async () => {
    const runs: number[] = [];
    const { registry, enqueue } = echoKind((job) => runs.push(job.payload.n));
    const ghost = 'aaaaaaaaaaaaaaaaaaaaaaaa';
    await expect(
      store.db.transaction().execute(async (trx) => {
        await enqueue(trx, 'test.echo', { n: 1 }, { id: ghost });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await getJob(store.db, ghost)).toBeUndefined();

    startWorker({ registry });
    const sentinel = await enqueue(store.db, 'test.echo', { n: 2 });
    await waitFor(
      jobIs(store.db, sentinel, (j) => j.status === 'done'),
      'the sentinel job',
    );
    expect(runs).toEqual([2]);
    expect(await countJobs(store.db, { kind: 'test.echo' })).toEqual([{ kind: 'test.echo', status: 'done', count: 1 }]);
  });

  it('lets two workers with separate connections drain 300 jobs, each exactly once', async () => {
    const second = await openStore(
      engine === 'postgres'
        ? { databaseUrl: store.databaseUrl, pgSchema: store.pgSchema ?? '' }
        : { sqliteFile: store.sqliteFile ?? '' },
    );
    closers.push(() => second.close());
    const kinds = { 'test.echo': {} };
    const starts = new Map<string, number>();
    const running = new Set<string>();
    const overlaps: string[] = [];
    const byWorker = { a: 0, b: 0 };
    const registryFor = (name: 'a' | 'b') =>
      new JobRegistry<Echo>(kinds).handle('test.echo', async (job) => {
        if (running.has(job.id)) overlaps.push(job.id);
        running.add(job.id);
        starts.set(job.id, (starts.get(job.id) ?? 0) + 1);
        byWorker[name] += 1;
        await new Promise((r) => setTimeout(r, job.payload.n % 4));
        running.delete(job.id);
      });
    const enqueue = makeEnqueue<Echo>(kinds);
    const ids = await store.db
      .transaction()
      .execute(async (trx) => Promise.all(Array.from({ length: 300 }, (_, n) => enqueue(trx, 'test.echo', { n }))));

    startWorker({ registry: registryFor('a'), concurrency: 4 });
    startWorker({ registry: registryFor('b'), concurrency: 4, store: second });
    await waitFor(
      async () => (await countJobs(store.db)).some((c) => c.status === 'done' && c.count === 300),
      '300 jobs done',
      60_000,
    );

    expect(overlaps).toEqual([]);
    expect(starts.size).toBe(300);
    expect([...starts.keys()].sort()).toEqual([...ids].sort());
    expect([...starts.values()].every((n) => n === 1)).toBe(true);
    expect(byWorker.a).toBeGreaterThan(0);
    expect(byWorker.b).toBeGreaterThan(0);
    const attempts = await store.db.selectFrom('jobs').select('attempts').distinct().execute();
    expect(attempts).toEqual([{ attempts: 1 }]);
  });

  it('stop() waits for a running job, and aborts one that outlives its bound', async () => {
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const registry = new JobRegistry<Echo>({ 'test.echo': {} }).handle('test.echo', async (job, ctx) => {
      if (job.payload.n === 1) return gate;
      await new Promise<void>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
    });
    const enqueue = makeEnqueue<Echo>({ 'test.echo': {} });

    const patient = startWorker({ registry, stopTimeoutMs: 30_000 });
    const first = await enqueue(store.db, 'test.echo', { n: 1 });
    await waitFor(async () => patient.runningCount === 1, 'the first handler to start');
    let stopped = false;
    const stopping = patient.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await getJob(store.db, first)).toMatchObject({ status: 'done' });

    const hasty = startWorker({ registry, stopTimeoutMs: 100 });
    const second = await enqueue(store.db, 'test.echo', { n: 2 });
    await waitFor(async () => hasty.runningCount === 1, 'the second handler to start');
    await hasty.stop();
    await waitFor(
      jobIs(store.db, second, (j) => j.status === 'queued'),
      'the aborted job back in the queue',
    );
    expect(await getJob(store.db, second)).toMatchObject({ attempts: 1, lastError: 'job worker stopping' });
  });
});
