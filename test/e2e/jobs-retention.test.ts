import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/adapters/clock.js';
import {
  countJobs,
  getJob,
  JobRegistry,
  JobWorker,
  makeEnqueue,
  pruneDoneJobs,
  type JobStatus,
} from '../../src/jobs/index.js';
import { loadConfig } from '../../src/config.js';
import { ENGINES, makeStore, type TestStore } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

interface Echo {
  'test.echo': { n: number };
}
const kinds = { 'test.echo': {} };
const enqueue = makeEnqueue<Echo>(kinds);
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-01T00:00:00.000Z');

describe.each(ENGINES)('retention of done jobs on %s', (engine) => {
  let store: TestStore;
  let worker: JobWorker<Echo> | undefined;

  beforeEach(async () => {
    store = await makeStore(engine);
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await store.cleanup();
  });

  /** A job in `status`, last updated `hoursAgo` hours before T0. */
  async function jobIn(status: JobStatus, hoursAgo: number): Promise<string> {
    const id = await enqueue(store.db, 'test.echo', { n: hoursAgo });
    await store.db
      .updateTable('jobs')
      .set({ status, updated_at: new Date(T0 - hoursAgo * HOUR).toISOString() })
      .where('id', '=', id)
      .execute();
    return id;
  }

  it('deletes only done jobs older than the cutoff, in batches, at most maxRows', async () => {
    const oldDone = [];
    for (let i = 0; i < 5; i++) oldDone.push(await jobIn('done', 48 + i));
    const recentDone = await jobIn('done', 1);
    const kept = [await jobIn('failed', 100), await jobIn('queued', 100), await jobIn('running', 100), recentDone];

    // Two rows per statement: three statements for five rows, stopped at four by maxRows.
    expect(await pruneDoneJobs(store.db, T0 - 24 * HOUR, { batch: 2, maxRows: 4 })).toBe(4);
    expect(await pruneDoneJobs(store.db, T0 - 24 * HOUR, { batch: 2 })).toBe(1);
    expect(await pruneDoneJobs(store.db, T0 - 24 * HOUR, { batch: 2 })).toBe(0);

    for (const id of oldDone) expect(await getJob(store.db, id)).toBeUndefined();
    for (const id of kept) expect(await getJob(store.db, id)).toBeDefined();
    expect(await countJobs(store.db)).toEqual([
      { kind: 'test.echo', status: 'done', count: 1 },
      { kind: 'test.echo', status: 'failed', count: 1 },
      { kind: 'test.echo', status: 'queued', count: 1 },
      { kind: 'test.echo', status: 'running', count: 1 },
    ]);
  });

  it('has the worker sweep done jobs once they are past the retention, by its clock', async () => {
    let now = T0;
    const clock: Clock = { now: () => now };
    const failed = await jobIn('failed', 1_000);
    const registry = new JobRegistry<Echo>(kinds).handle('test.echo', async () => undefined);
    worker = new JobWorker<Echo>({
      store,
      registry,
      clock,
      pollIntervalMs: 20,
      retention: { keepDoneMs: 2 * HOUR, everyMs: 25 },
    });
    worker.start();
    const id = await enqueue(store.db, 'test.echo', { n: 1 }, { clock });
    worker.wake();
    await waitFor(async () => (await getJob(store.db, id))?.status === 'done', 'the job to be done');

    // Many sweeps pass while the job is younger than the retention: it stays.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await getJob(store.db, id)).toMatchObject({ status: 'done' });

    now = T0 + 2 * HOUR + 1;
    await waitFor(async () => (await getJob(store.db, id)) === undefined, 'the done job to be deleted');
    expect(await getJob(store.db, failed)).toMatchObject({ status: 'failed' });
  });

  it('keeps done jobs forever with a retention of 0', async () => {
    const id = await jobIn('done', 10_000);
    const registry = new JobRegistry<Echo>(kinds).handle('test.echo', async () => undefined);
    worker = new JobWorker<Echo>({
      store,
      registry,
      clock: { now: () => T0 },
      pollIntervalMs: 20,
      retention: { keepDoneMs: 0, everyMs: 10 },
    });
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await getJob(store.db, id)).toMatchObject({ status: 'done' });
  });
});

describe('ANNOTARY_DONE_JOB_RETENTION_HOURS', () => {
  it('defaults to a week, takes 0 for forever, and names itself when wrong', () => {
    expect(loadConfig({}).doneJobRetentionHours).toBe(168);
    expect(loadConfig({ ANNOTARY_DONE_JOB_RETENTION_HOURS: '0' }).doneJobRetentionHours).toBe(0);
    expect(() => loadConfig({ ANNOTARY_DONE_JOB_RETENTION_HOURS: 'soon' })).toThrow(
      /ANNOTARY_DONE_JOB_RETENTION_HOURS/,
    );
  });
});
