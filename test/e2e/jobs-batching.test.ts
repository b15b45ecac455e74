import { CompiledQuery } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  claimJobs,
  completeJobs,
  getJob,
  JOB_RECORDED,
  JobRegistry,
  JobWorker,
  makeEnqueue,
  renewLeases,
} from '../../src/jobs/index.js';
import { pickStatement, steerClaimPlan } from '../../src/jobs/claims.js';
import { insertJobs } from '../../src/jobs/queue.js';
import { ENGINES, makeStore, type TestStore } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

/*
 * What lets a worker share its store work between jobs: ending jobs in a handler's own
 * transaction, claims checked in groups, jobs queued by this process claimed without waiting
 * for the poll, and a claim that walks the queued-jobs index on any statistics.
 */
interface Kv {
  'test.kv': { key: string };
}
const kinds = { 'test.kv': { leaseMs: 60_000 } };
const enqueue = makeEnqueue<Kv>(kinds);
const leases = new Map([['test.kv', 60_000]]);

describe.each(ENGINES)('batched job bookkeeping on %s', (engine) => {
  let store: TestStore;
  const workers: JobWorker<object>[] = [];

  beforeEach(async () => {
    store = await makeStore(engine);
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop();
    await store.cleanup();
  });

  function startWorker(registry: JobRegistry<Kv>, pollIntervalMs = 20) {
    const worker = new JobWorker<Kv>({ store, registry, pollIntervalMs, concurrency: 16 });
    workers.push(worker as JobWorker<object>);
    worker.start();
    return worker;
  }

  it('ends a job in its handler’s own transaction, together with what the handler wrote', async () => {
    const registry = new JobRegistry<Kv>(kinds).handle('test.kv', async (job, ctx) => {
      await store.db.transaction().execute(async (trx) => {
        const ended = await completeJobs(trx, [ctx.claim], Date.now());
        if (!ended.has(job.id)) return;
        const now = new Date().toISOString();
        await trx.insertInto('kv').values({ key: job.payload.key, value: job.id, updated_at: now }).execute();
      });
      return JOB_RECORDED;
    });
    const ids = await store.db
      .transaction()
      .execute((trx) => Promise.all(Array.from({ length: 40 }, (_, i) => enqueue(trx, 'test.kv', { key: `k${i}` }))));
    startWorker(registry);
    await waitFor(async () => (await store.db.selectFrom('kv').select('key').execute()).length === 40, '40 kv rows');

    const jobs = await store.db.selectFrom('jobs').selectAll().execute();
    expect(jobs.map((j) => [j.status, j.attempts, j.lease_until]).sort()).toEqual(
      ids.map(() => ['done', 1, null]).sort(),
    );
    const kv = await store.db.selectFrom('kv').select(['key', 'value']).execute();
    expect(new Set(kv.map((r) => r.value))).toEqual(new Set(ids));
  });

  it('ends and renews only the claims still held, and counts a claim ended by its holder as held', async () => {
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((key) => enqueue(store.db, 'test.kv', { key })));
    const claimed = await claimJobs(store.db, store.engine, { workerId: 'w1', leases, limit: 3, now: Date.now() });
    expect(claimed.map((j) => j.id).sort()).toEqual([a, b, c].sort());
    const mine = (id: string | undefined, attempt = 1) => ({ id: id ?? '', workerId: 'w1', attempt });

    // Another owner, or another attempt, is not this claim: nothing is touched.
    expect(await completeJobs(store.db, [{ ...mine(a), workerId: 'w2' }, mine(b, 2)], Date.now())).toEqual(new Set());
    expect(await getJob(store.db, a ?? '')).toMatchObject({ status: 'running', leaseOwner: 'w1' });

    expect(await completeJobs(store.db, [mine(a)], Date.now())).toEqual(new Set([a]));
    // Done once: a second end (a duplicate, or a late retry) writes nothing.
    expect(await completeJobs(store.db, [mine(a)], Date.now())).toEqual(new Set());

    const leaseOfC = (await getJob(store.db, c ?? ''))?.leaseUntil;
    const later = Date.now() + 120_000;
    const held = await renewLeases(store.db, store.engine, [mine(a), mine(b), mine(c, 2)], later, 60_000);
    expect(held).toEqual(new Set([a, b]));
    expect((await getJob(store.db, b ?? ''))?.leaseUntil).toBe(new Date(later + 60_000).toISOString());
    // The claim of c was not renewed under the wrong attempt; a's is over and stays so.
    expect((await getJob(store.db, c ?? ''))?.leaseUntil).toBe(leaseOfC);
    expect(await getJob(store.db, a ?? '')).toMatchObject({ status: 'done', leaseUntil: null });
  });

  it.runIf(engine === 'postgres')(
    'renews around a job row another transaction holds, and keeps its claim',
    async () => {
      const id = await enqueue(store.db, 'test.kv', { key: 'locked' });
      await claimJobs(store.db, store.engine, { workerId: 'w1', leases, limit: 1, now: Date.now() });
      let release = () => undefined as void;
      let locked = false;
      const holding = store.db.transaction().execute(async (trx) => {
        await trx.selectFrom('jobs').select('id').where('id', '=', id).forUpdate().execute();
        locked = true;
        await new Promise<void>((resolve) => (release = resolve));
      });
      await waitFor(() => locked, 'the row lock');
      // Waiting for the row would hang here until the other transaction ends.
      const held = await renewLeases(store.db, store.engine, [{ id, workerId: 'w1', attempt: 1 }], Date.now(), 60_000);
      release();
      await holding;
      expect(held).toEqual(new Set([id]));
    },
  );

  it('claims jobs this process queued without waiting for the poll interval', async () => {
    const ran: string[] = [];
    const registry = new JobRegistry<Kv>(kinds).handle('test.kv', async (job) => void ran.push(job.payload.key));
    startWorker(registry, 60_000);
    // Let the first poll find the queue empty: the next one would be a minute away.
    await new Promise((r) => setTimeout(r, 100));
    await store.db.transaction().execute(async (trx) => {
      await insertJobs(trx, [{ id: 'aaaaaaaaaaaaaaaaaaaaaaa1', kind: 'test.kv', payload: { key: 'hinted' } }]);
      // Still uncommitted: a claim from another connection cannot see it yet.
      await new Promise((r) => setTimeout(r, 50));
    });
    await waitFor(async () => ran.includes('hinted'), 'the hinted job to run', 5_000);
  });

  it('walks the queued-jobs index in order and sorts nothing, before any statistics exist', async () => {
    const now = Date.now();
    const jobs = Array.from({ length: 3_000 }, (_, i) => ({
      id: `${(1_000_000 + i).toString(16)}${'0'.repeat(19)}`,
      kind: 'test.kv',
      payload: { key: `k${i}` },
    }));
    await insertJobs(store.db, jobs);
    const plan = await store.db.transaction().execute(async (trx) => {
      const prefix = engine === 'postgres' ? 'EXPLAIN ' : 'EXPLAIN QUERY PLAN ';
      if (engine === 'postgres') await steerClaimPlan(trx);
      const query = pickStatement(trx, engine, { workerId: 'w', leases, limit: 64, now }, 'queued', 64).compile();
      const rows = await trx.executeQuery(CompiledQuery.raw(prefix + query.sql, [...query.parameters]));
      return rows.rows.map((r) => Object.values(r as Record<string, unknown>).join(' ')).join('\n');
    });
    expect(plan).toMatch(/jobs_queued/);
    expect(plan).not.toMatch(/Sort|TEMP B-TREE/);
  });
});
