import { afterAll, describe, expect, it } from 'vitest';
import { childDatabaseUrl, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { makeStore, TEST_DATABASE_URL, type TestStore } from '../helpers/stores.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const running: ServerProcess[] = [];
let store: TestStore | undefined;
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop('SIGKILL')));
  await store?.cleanup();
});

describe('rate limits shared through Redis', () => {
  it('two API processes on one PostgreSQL and one Redis spend one budget per key', async () => {
    store = await makeStore('postgres');
    const env = {
      ANNOTARY_DATA_DIR: store.dataDir,
      DATABASE_URL: childDatabaseUrl(TEST_DATABASE_URL, store.pgSchema ?? ''),
      REDIS_URL,
      ANNOTARY_BOOTSTRAP_API_KEY: 'ak_shared_budget_test_key',
      ANNOTARY_SECRET_KEY: 'ab'.repeat(32),
      ANNOTARY_RUN_WORKER: 'false',
    };
    const a = await startServerProcess(env);
    running.push(a);
    const b = await startServerProcess(env);
    running.push(b);
    // Start at the top of a window so the 101 requests cannot straddle a reset.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 40_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 50));

    const statuses: number[] = [];
    let lastRemaining = '';
    for (let i = 0; i < 101; i += 1) {
      const url = `${i % 2 === 0 ? a.url : b.url}/v2/listProjects`;
      const res = await fetch(url, { headers: { apikey: 'ak_shared_budget_test_key' } });
      statuses.push(res.status);
      lastRemaining = res.headers.get('x-ratelimit-remaining') ?? '';
      if (i === 99) expect(lastRemaining).toBe('0');
      await res.arrayBuffer();
    }
    expect(statuses.slice(0, 100).every((s) => s === 200)).toBe(true);
    expect(statuses[100]).toBe(429);
    // The other process is out of budget for this key too.
    const other = await fetch(`${a.url}/v2/listProjects`, { headers: { apikey: 'ak_shared_budget_test_key' } });
    expect(other.status).toBe(429);
    expect(Number(other.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 120_000);
});
