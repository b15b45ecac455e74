import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/exports.js';
import { asBrowser, OWNER_PASSWORD, signInWith } from '../helpers/sessions.js';
import { ENGINES } from '../helpers/stores.js';

const HOUR = 3_600_000;

describe.each(ENGINES)('sessions over time, sign-in limits and the first password on %s', (engine) => {
  let t: TestApp;
  const clock = manualClock('2026-03-02T08:00:00.000Z');
  beforeAll(async () => {
    t = await makeTestApp(engine, {
      clock,
      // Behind a trusted proxy, so each test's X-Forwarded-For is the client's address.
      env: {
        ANNOTARY_PUBLIC_URL: 'https://annotary.example',
        ANNOTARY_SESSION_HOURS: '12',
        ANNOTARY_TRUST_PROXY: 'true',
      },
    });
  });
  afterAll(() => t.close());

  it('prints no password: the first start makes a one-time link that sets it and signs the owner in', async () => {
    expect(t.ownerPasswordLink).toMatch(/^https:\/\/annotary\.example\/password\/[\w-]{43}$/);
    const token = t.ownerPasswordLink?.split('/').pop() ?? '';
    const about = await t.call('GET', `/v2/password-links/${token}`, { key: null });
    expect(about.statusCode).toBe(200);
    expect(about.json().data).toMatchObject({ purpose: 'owner', email: t.ownerEmail, organizationRole: 'owner' });
    const short = await t.call('POST', `/v2/password-links/${token}`, { key: null, body: { password: 'short' } });
    expect(short.statusCode).toBe(400);
    expect(short.json().errors[0].field).toBe('password');
    const set = await t.call('POST', `/v2/password-links/${token}`, { key: null, body: { password: OWNER_PASSWORD } });
    expect(set.statusCode).toBe(200);
    const cookie = set.cookies.find((c) => c.name === 'annotary_session');
    // The public URL is https: the cookie is Secure.
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax' });
    const again = await t.call('POST', `/v2/password-links/${token}`, {
      key: null,
      body: { password: OWNER_PASSWORD },
    });
    expect(again.statusCode).toBe(404);
    expect((await t.call('GET', `/v2/password-links/${token}`, { key: null })).statusCode).toBe(404);
    await signInWith(t, { email: t.ownerEmail, password: OWNER_PASSWORD });
  });

  it('ends a session after ANNOTARY_SESSION_HOURS without use, and keeps a used one going', async () => {
    const s = await signInWith(t, { email: t.ownerEmail, password: OWNER_PASSWORD });
    clock.advance(11 * HOUR);
    expect((await asBrowser(t, s, 'GET', '/v2/listProjects')).statusCode).toBe(200);
    // Used at 11 h, so it lives until 23 h.
    clock.advance(11 * HOUR);
    const used = await asBrowser(t, s, 'GET', '/v2/session');
    expect(used.statusCode).toBe(200);
    expect(used.json().data.expiresAt).toBe(new Date(clock.now() + 12 * HOUR).toISOString());
    clock.advance(12 * HOUR + 1);
    const ended = await asBrowser(t, s, 'GET', '/v2/listProjects');
    expect(ended.statusCode).toBe(401);
    expect(ended.json().message).toMatch(/sign in again/);
  });

  it('limits sign-in attempts per account, even with the right password, until the minute passes', async () => {
    clock.set('2026-03-05T10:00:00.000Z');
    for (let i = 0; i < 10; i += 1) {
      const res = await t.call('POST', '/v2/session', {
        key: null,
        body: { email: t.ownerEmail, password: `guess number ${i}` },
        headers: { 'x-forwarded-for': `10.1.0.${i}` },
      });
      expect(res.statusCode).toBe(401);
    }
    const right = await t.call('POST', '/v2/session', {
      key: null,
      body: { email: t.ownerEmail, password: OWNER_PASSWORD },
      headers: { 'x-forwarded-for': '10.1.1.1' },
    });
    expect(right.statusCode).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    expect(right.cookies).toEqual([]);
    clock.advance(60_000);
    await signInWith(t, { email: t.ownerEmail, password: OWNER_PASSWORD }, { 'x-forwarded-for': '10.1.1.1' });
  });

  it('limits sign-in attempts per address, whatever the account', async () => {
    clock.set('2026-03-06T10:00:00.000Z');
    const from = { 'x-forwarded-for': '10.2.0.1' };
    for (let i = 0; i < 30; i += 1) {
      const res = await t.call('POST', '/v2/session', { key: null, body: { apiKey: `ak_guess_${i}` }, headers: from });
      expect(res.statusCode).toBe(401);
    }
    const next = await t.call('POST', '/v2/session', {
      key: null,
      body: { email: t.ownerEmail, password: OWNER_PASSWORD },
      headers: from,
    });
    expect(next.statusCode).toBe(429);
    expect(next.json().message).toMatch(/too many sign-in attempts/);
    // Another address is not held back.
    await signInWith(t, { email: t.ownerEmail, password: OWNER_PASSWORD }, { 'x-forwarded-for': '10.2.0.2' });
  });
});
