import { randomBytes, randomInt } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/adapters/clock.js';
import { AUTH_FAILURES_PER_MINUTE } from '../../src/http/plugins/rate-limit.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/**
 * X-Forwarded-For counts only when ANNOTARY_TRUST_PROXY says so, and invalid keys are limited
 * per client address.
 */

class ManualClock implements Clock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
}

describe.each(ENGINES)('proxy trust and key guessing on %s', (engine) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  const start = (env: Record<string, string> = {}) =>
    makeTestApp(engine, { env, clock: new ManualClock(Date.UTC(2026, 10, 21, 12, 0, 10)) });
  const get = (app: TestApp, headers: Record<string, string>, remoteAddress = '10.0.0.7') =>
    app.app.inject({ method: 'GET', url: '/v2/listProjects', headers, remoteAddress });

  it('ignores X-Forwarded-For by default: a forged address shares the caller budget', async () => {
    t = await start();
    const first = await get(t, { 'x-forwarded-for': '203.0.113.1' });
    const second = await get(t, { 'x-forwarded-for': '203.0.113.2' });
    expect(first.statusCode).toBe(401);
    expect(first.headers['x-ratelimit-remaining']).toBe('99');
    expect(second.headers['x-ratelimit-remaining']).toBe('98');
  });

  it('limits invalid keys per address, whatever address the caller forges', async () => {
    t = await start();
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i += 1) {
      const res = await get(t, { apikey: `ak_guess_${i}`, 'x-forwarded-for': `198.51.100.${i}` });
      expect(res.statusCode).toBe(401);
    }
    const limited = await get(t, { apikey: 'ak_guess_last', 'x-forwarded-for': '198.51.100.250' });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ status: 'fail', message: expect.stringContaining('invalid API key') });
    expect(Number(limited.headers['retry-after'])).toBe(50);
    // A valid key from that address is still served, and other addresses are not affected.
    expect((await get(t, { apikey: t.ownerKey })).statusCode).toBe(200);
    expect((await get(t, { apikey: 'ak_other_guess' }, '10.0.0.8')).statusCode).toBe(401);
    // The next window starts afresh.
    (t.ctx.clock as ManualClock).t += 50_000;
    expect((await get(t, { apikey: 'ak_guess_again' })).statusCode).toBe(401);
  });

  it('honours X-Forwarded-For from a proxy named in ANNOTARY_TRUST_PROXY only', async () => {
    t = await start({ ANNOTARY_TRUST_PROXY: '10.0.0.0/8, ::1' });
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i += 1) {
      expect((await get(t, { apikey: 'ak_bad', 'x-forwarded-for': '203.0.113.9' })).statusCode).toBe(401);
    }
    expect((await get(t, { apikey: 'ak_bad', 'x-forwarded-for': '203.0.113.9' })).statusCode).toBe(429);
    // Another client behind the trusted proxy has its own budget.
    expect((await get(t, { apikey: 'ak_wrong', 'x-forwarded-for': '203.0.113.10' })).statusCode).toBe(401);
    // A caller that is not the proxy cannot pick its address: it is itself.
    const direct = await get(t, { 'x-forwarded-for': '203.0.113.11' }, '192.0.2.5');
    const again = await get(t, { 'x-forwarded-for': '203.0.113.12' }, '192.0.2.5');
    expect(Number(again.headers['x-ratelimit-remaining'])).toBe(Number(direct.headers['x-ratelimit-remaining']) - 1);
  });

  it('takes a hop count', async () => {
    t = await start({ ANNOTARY_TRUST_PROXY: '1' });
    const a = await get(t, { 'x-forwarded-for': '203.0.113.1' });
    const b = await get(t, { 'x-forwarded-for': '203.0.113.2' });
    expect(a.headers['x-ratelimit-remaining']).toBe('99');
    expect(b.headers['x-ratelimit-remaining']).toBe('99');
  });

  it('shares the invalid-key budget between replicas through Redis', async () => {
    const env = { REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' };
    t = await start(env);
    const other = await start(env);
    try {
      // A fresh address, so no other run on the same Redis shares its bucket.
      const address = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
      // Keys with prefixes of their own, so only the address's budget is spent.
      const guess = (i: number) => `ak_${randomBytes(6).toString('hex')}_${i}`;
      for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i += 1) {
        const replica = i % 2 === 0 ? t : other;
        expect((await get(replica, { apikey: guess(i) }, address)).statusCode).toBe(401);
      }
      expect((await get(t, { apikey: guess(98) }, address)).statusCode).toBe(429);
      expect((await get(other, { apikey: guess(99) }, address)).statusCode).toBe(429);
    } finally {
      await other.close();
    }
  });
});
