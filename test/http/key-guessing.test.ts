import { randomBytes, randomInt } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/adapters/clock.js';
import {
  AUTH_FAILURES_PER_MINUTE,
  AUTH_FAILURES_PER_PREFIX_PER_MINUTE,
  KEY_PREFIX_LENGTH,
} from '../../src/http/plugins/rate-limit.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/**
 * Wrong API keys are slowed per address and per key prefix, and never cost a valid key its
 * answer: an office behind one address keeps working while one of its scripts sends a wrong key.
 */

class ManualClock implements Clock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
}

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const COUNTERS = [
  ['memory', {}],
  ['Redis', { REDIS_URL }],
] as const;

/** A wrong key whose prefix no other run (sharing Redis) has tried. */
const wrongKey = () => `ak_${randomBytes(12).toString('base64url')}`;
/** An address no other run (sharing Redis) has used. */
const freshAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

const CASES = ENGINES.flatMap((engine) => COUNTERS.map(([counters, env]) => [engine, counters, env] as const));

describe.each(CASES)('wrong API keys on %s with %s counters', (engine, _counters, env) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  const clock = () => new ManualClock(Date.UTC(2026, 10, 21, 12, 0, 10));
  const get = (app: TestApp, apikey: string, remoteAddress: string) =>
    app.app.inject({ method: 'GET', url: '/v2/listProjects', headers: { apikey }, remoteAddress });

  it('serves a valid key from an address that sends 100 wrong keys, and answers the sender 429', async () => {
    t = await makeTestApp(engine, { env, clock: clock() });
    const office = freshAddress();
    const reset = String(Date.UTC(2026, 10, 21, 12, 1, 0) / 1000);
    const statuses: number[] = [];
    for (let i = 1; i <= 100; i += 1) {
      const wrong = await get(t, wrongKey(), office);
      statuses.push(wrong.statusCode);
      if (i > AUTH_FAILURES_PER_MINUTE) {
        expect(wrong.headers['x-ratelimit-limit']).toBe(String(AUTH_FAILURES_PER_MINUTE));
        expect(wrong.headers['x-ratelimit-remaining']).toBe('0');
        expect(wrong.headers['x-ratelimit-reset']).toBe(reset);
        expect(wrong.headers['retry-after']).toBe('50');
        expect(wrong.json()).toMatchObject({ status: 'fail', message: expect.stringContaining('from this address') });
      }
      if (i % 2 === 0) expect((await get(t, t.ownerKey, office)).statusCode).toBe(200);
    }
    expect(statuses.slice(0, AUTH_FAILURES_PER_MINUTE).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(AUTH_FAILURES_PER_MINUTE).every((s) => s === 429)).toBe(true);
    // Another address still gets its own budget (a 401, not a 429).
    expect((await get(t, wrongKey(), freshAddress())).statusCode).toBe(401);
  });

  it('slows guesses at one key prefix spread over many addresses, and still serves that key', async () => {
    t = await makeTestApp(engine, { env, clock: clock() });
    // The guesses share the valid key's prefix: only the rest differs.
    const prefix = t.ownerKey.slice(0, KEY_PREFIX_LENGTH);
    const guess = () => prefix + randomBytes(12).toString('base64url');
    for (let i = 0; i < AUTH_FAILURES_PER_PREFIX_PER_MINUTE; i += 1) {
      expect((await get(t, guess(), freshAddress())).statusCode).toBe(401);
    }
    const limited = await get(t, guess(), freshAddress());
    expect(limited.statusCode).toBe(429);
    expect(limited.json().message).toContain('starting with these characters');
    for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']) {
      expect(limited.headers[header]).toBeDefined();
    }
    expect((await get(t, t.ownerKey, freshAddress())).statusCode).toBe(200);
  });
});

describe.each(ENGINES)('the 429s of other budgets on %s', (engine) => {
  it('carries the four headers on sign-in attempts over their budget', async () => {
    const t = await makeTestApp(engine, { clock: new ManualClock(Date.UTC(2026, 10, 21, 12, 0, 10)) });
    try {
      let res = await t.call('POST', '/v2/session', {
        key: null,
        body: { email: 'nobody@example.com', password: 'wrong password' },
      });
      for (let i = 0; i < 20 && res.statusCode !== 429; i += 1) {
        res = await t.call('POST', '/v2/session', {
          key: null,
          body: { email: 'nobody@example.com', password: 'wrong password' },
        });
      }
      expect(res.statusCode).toBe(429);
      expect(res.headers['x-ratelimit-limit']).toBe('10');
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      expect(res.headers['x-ratelimit-reset']).toBe(String(Date.UTC(2026, 10, 21, 12, 1, 0) / 1000));
      expect(res.headers['retry-after']).toBe('50');
    } finally {
      await t.close();
    }
  });
});
