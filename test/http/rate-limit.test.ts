import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/adapters/clock.js';
import { setOrganizationPlan } from '../../src/services/identity/identity.service.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/** A clock the test moves by hand, so a window's reset is exact. */
class ManualClock implements Clock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
}

describe.each(ENGINES)('rate limits on %s', (engine) => {
  let t: TestApp;
  // 10 s into a minute window.
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 12, 0, 10));
  beforeAll(async () => {
    t = await makeTestApp(engine, { clock });
  });
  afterAll(() => t.close());

  it('answers the 101st request in a minute on the standard plan with 429 and the headers', async () => {
    const key = await t.addUser(`limited-${engine}@example.com`);
    const resetAt = Date.UTC(2026, 10, 21, 12, 1, 0) / 1000;
    for (let i = 1; i <= 100; i += 1) {
      const res = await t.call('GET', '/v2/listProjects', { key });
      expect(res.statusCode).toBe(200);
      if (i === 1 || i === 100) {
        expect(res.headers['x-ratelimit-limit']).toBe('100');
        expect(res.headers['x-ratelimit-remaining']).toBe(String(100 - i));
        expect(res.headers['x-ratelimit-reset']).toBe(String(resetAt));
        expect(res.headers['ratelimit-policy']).toBe('"default";q=100;w=60');
        expect(res.headers.ratelimit).toBe(`"default";r=${100 - i};t=50`);
      }
    }
    const limited = await t.call('GET', '/v2/listProjects', { key });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ status: 'fail', message: expect.stringContaining('rate limit') });
    expect(limited.headers['retry-after']).toBe('50');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    // Other keys have their own budget.
    expect((await t.call('GET', '/v2/listProjects')).statusCode).toBe(200);
    // The next window starts afresh.
    clock.t += 50_000;
    const next = await t.call('GET', '/v2/listProjects', { key });
    expect(next.statusCode).toBe(200);
    expect(next.headers['x-ratelimit-remaining']).toBe('99');
  });

  it('follows the organization plan, enterprise with its own number', async () => {
    await setOrganizationPlan(t.store.db, t.orgId, 'professional');
    const pro = await t.call('GET', '/v2/listProjects');
    expect(pro.headers['x-ratelimit-limit']).toBe('500');
    await setOrganizationPlan(t.store.db, t.orgId, 'enterprise', 2500);
    const ent = await t.call('GET', '/v2/listProjects');
    expect(ent.headers['x-ratelimit-limit']).toBe('2500');
    await setOrganizationPlan(t.store.db, t.orgId, 'standard');
  });

  it('limits requests without a valid key per client address, and counts the 401s', async () => {
    let last = await t.call('GET', '/v2/listProjects', { key: 'ak_wrong' });
    expect(last.statusCode).toBe(401);
    expect(last.headers['x-ratelimit-limit']).toBe('100');
    for (let i = 0; i < 100; i += 1) last = await t.call('GET', '/v2/listProjects', { key: 'ak_wrong' });
    expect(last.statusCode).toBe(429);
  });

  it('does not count /healthz', async () => {
    const res = await t.call('GET', '/healthz', { key: null });
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });
});
