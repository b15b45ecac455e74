import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { asBrowser, signInWith } from '../helpers/sessions.js';
import { ENGINES } from '../helpers/stores.js';

/** POST /v2/session/api-key: a person makes a new key for themselves; the old one stops working. */
describe.each(ENGINES)('a new API key on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(() => t.close());

  it('answers a new key once; the old key answers 401, the new one works', async () => {
    const old = await t.addUser('kim@example.com');
    const res = await t.call('POST', '/v2/session/api-key', { key: old, body: {} });
    expect(res.statusCode, res.body).toBe(201);
    const { apiKey, prefix } = res.json().data as { apiKey: string; prefix: string };
    expect(apiKey).not.toBe(old);
    expect(apiKey.startsWith(prefix)).toBe(true);
    expect((await t.call('GET', '/v2/session', { key: old })).statusCode).toBe(401);
    const me = await t.call('GET', '/v2/session', { key: apiKey });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.user.email).toBe('kim@example.com');
    // Only the hash is stored.
    const rows = await t.store.db.selectFrom('api_keys').selectAll().execute();
    for (const row of rows) expect(JSON.stringify(row)).not.toContain(apiKey);
  });

  it('works from a console session with the CSRF token, keeps the session, and refuses without the token', async () => {
    const key = await t.addUser('lee@example.com');
    const s = await signInWith(t, { apiKey: key });
    expect((await asBrowser(t, { cookie: s.cookie }, 'POST', '/v2/session/api-key', { body: {} })).statusCode).toBe(
      403,
    );
    expect((await t.call('GET', '/v2/session', { key })).statusCode).toBe(200);
    const res = await asBrowser(t, s, 'POST', '/v2/session/api-key', { body: {} });
    expect(res.statusCode, res.body).toBe(201);
    expect((await t.call('GET', '/v2/session', { key })).statusCode).toBe(401);
    expect((await asBrowser(t, s, 'GET', '/v2/session')).statusCode).toBe(200);
  });
});
