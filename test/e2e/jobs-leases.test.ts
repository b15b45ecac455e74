import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/adapters/clock.js';
import {
  getJob,
  JobRegistry,
  JobWorker,
  makeEnqueue,
  type JobInfo,
  type JobWorkerOptions,
} from '../../src/jobs/index.js';
import type { ChildConfig, HangPayloads } from '../helpers/job-worker-child.js';
import { ENGINES, makeStore, type TestStore } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Leases: a job whose worker died is taken over once its lease lapses, the dead run counting
 * as an attempt; a worker that lost its lease can no longer write to the job.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const childScript = path.join(repoRoot, 'test/helpers/job-worker-child.ts');
const leaseMs = 1_000;
const kinds = { 'test.hang': { leaseMs, maxAttempts: 3 } };

interface Echo {
  'test.echo': { n: number };
}

describe.each(ENGINES)('a killed job worker on %s', (engine) => {
  let store: TestStore;
  let child: ChildProcess | undefined;
  const workers: JobWorker<object>[] = [];

  beforeEach(async () => {
    store = await makeStore(engine);
  });
  afterEach(async () => {
    if (child) await killChild(child);
    child = undefined;
    for (const w of workers.splice(0)) await w.stop();
    await store.cleanup();
  });

  function startWorker<P extends object>(opts: Partial<JobWorkerOptions<P>> & { registry: JobRegistry<P> }) {
    const worker = new JobWorker<P>({ store, pollIntervalMs: 20, ...opts });
    workers.push(worker as JobWorker<object>);
    worker.start();
    return worker;
  }

  const jobIs = (id: string, check: (j: JobInfo) => boolean) => async () => {
    const job = await getJob(store.db, id);
    return job !== undefined && check(job);
  };

  it('runs again a job whose worker process was killed, once its lease lapses', async () => {
    const id = await makeEnqueue<HangPayloads>(kinds)(store.db, 'test.hang', { note: 'x' });
    const config: ChildConfig = {
      ...(store.databaseUrl ? { databaseUrl: store.databaseUrl, pgSchema: store.pgSchema ?? '' } : {}),
      ...(store.sqliteFile ? { sqliteFile: store.sqliteFile } : {}),
      workerId: 'doomed-child',
      leaseMs,
    };
    const proc = spawn(process.execPath, ['--import', 'tsx', childScript, JSON.stringify(config)], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let stderr = '';
    proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const claimed = await firstLine(
      proc,
      (m) => m['event'] === 'claimed',
      () => stderr,
    );
    expect(claimed).toMatchObject({ jobId: id, attempt: 1 });
    const held = await getJob(store.db, id);
    expect(held).toMatchObject({ status: 'running', leaseOwner: 'doomed-child', attempts: 1 });

    const runs: { attempt: number; last: boolean }[] = [];
    const registry = new JobRegistry<HangPayloads>(kinds).handle('test.hang', async (job, ctx) => {
      runs.push({ attempt: job.attempt, last: ctx.isLastAttempt });
    });
    const worker = startWorker({ registry });
    // While the child lives it renews its lease, and the other worker keeps its hands off.
    await waitFor(
      jobIs(id, (j) => (j.leaseUntil ?? '') > (held?.leaseUntil ?? '')),
      'a lease renewal by the child',
    );
    expect(runs).toEqual([]);

    await killChild(proc);
    await waitFor(
      jobIs(id, (j) => j.status === 'done'),
      'the job to be taken over',
    );
    expect(runs).toEqual([{ attempt: 2, last: false }]);
    expect(await getJob(store.db, id)).toMatchObject({ attempts: 2, leaseOwner: worker.id });
  });

  it('keeps a worker that lost its lease from writing over the new claim', async () => {
    const kinds = { 'test.echo': { leaseMs: 60_000 } };
    const gates = new Map<string, () => void>();
    const runs: string[] = [];
    const registryFor = (name: string) =>
      new JobRegistry<Echo>(kinds).handle('test.echo', async () => {
        runs.push(name);
        await new Promise<void>((resolve) => gates.set(name, resolve));
        if (name === 'slow') throw new Error('too late');
      });
    const id = await makeEnqueue<Echo>(kinds)(store.db, 'test.echo', { n: 1 });
    const slow = startWorker({ registry: registryFor('slow') });
    await waitFor(() => gates.has('slow'), 'the first claim');

    // To a worker whose clock is past the lease, the first claim looks abandoned.
    const later: Clock = { now: () => Date.now() + 120_000 };
    const fast = startWorker({ registry: registryFor('fast'), clock: later });
    await waitFor(() => gates.has('fast'), 'the second claim');
    gates.get('slow')?.();
    await waitFor(() => slow.runningCount === 0, 'the slow handler to end');
    expect(await getJob(store.db, id)).toMatchObject({ status: 'running', attempts: 2, leaseOwner: fast.id });

    gates.get('fast')?.();
    await waitFor(
      jobIs(id, (j) => j.status === 'done'),
      'the re-claimed job to be done',
    );
    expect(runs).toEqual(['slow', 'fast']);
    expect(await getJob(store.db, id)).toMatchObject({ attempts: 2, leaseOwner: fast.id, lastError: null });
  });

  it('fails without running it a job whose last attempt died with its worker', async () => {
    const once = { 'test.echo': { leaseMs: 60_000, maxAttempts: 1 } };
    const gates = new Map<string, () => void>();
    const registryFor = (name: string) =>
      new JobRegistry<Echo>(once).handle('test.echo', () => new Promise<void>((resolve) => gates.set(name, resolve)));
    const id = await makeEnqueue<Echo>(once)(store.db, 'test.echo', { n: 1 });
    const stuck = startWorker({ registry: registryFor('stuck') });
    await waitFor(() => gates.has('stuck'), 'the first claim');

    const later: Clock = { now: () => Date.now() + 120_000 };
    startWorker({ registry: registryFor('late'), clock: later });
    await waitFor(
      jobIs(id, (j) => j.status === 'failed'),
      'the job to fail',
    );
    gates.get('stuck')?.();
    await waitFor(() => stuck.runningCount === 0, 'the stuck handler to end');

    expect(gates.has('late')).toBe(false);
    expect(await getJob(store.db, id)).toMatchObject({
      status: 'failed',
      attempts: 2,
      lastError: 'lease expired during the last attempt',
    });
  });
});

async function killChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
}

/** The first JSON line of the child's stdout that matches, or an error carrying its stderr. */
function firstLine(
  child: ChildProcess,
  match: (msg: Record<string, unknown>) => boolean,
  stderr: () => string,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout ?? process.stdin });
    const timer = setTimeout(() => reject(new Error(`child never claimed the job: ${stderr()}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`child exited (${String(code)}): ${stderr()}`)));
    lines.on('line', (line) => {
      const msg = JSON.parse(line) as Record<string, unknown>;
      if (match(msg)) {
        clearTimeout(timer);
        resolve(msg);
      }
    });
  });
}
