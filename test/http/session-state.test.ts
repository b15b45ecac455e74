import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { asBrowser, OWNER_PASSWORD, signInWith } from '../helpers/sessions.js';
import { ENGINES } from '../helpers/stores.js';

/** GET /v2/session/state: the console's first question, answered 200 whether or not anyone is signed in. */
describe.each(ENGINES)('whether anyone is signed in, on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_BOOTSTRAP_PASSWORD: OWNER_PASSWORD } });
  });
  afterAll(() => t.close());

  it('answers a browser without a cookie 200 signedIn false, where GET /v2/session answers 401', async () => {
    const state = await t.call('GET', '/v2/session/state', { key: null });
    expect(state.statusCode).toBe(200);
    expect(state.json()).toEqual({ status: 'success', data: { signedIn: false } });
    expect((await t.call('GET', '/v2/session', { key: null })).statusCode).toBe(401);
  });

  it('answers the session for its cookie, as GET /v2/session does, and signedIn false once it ended', async () => {
    const owner = await signInWith(t, { email: t.ownerEmail, password: OWNER_PASSWORD });
    const state = await asBrowser(t, owner, 'GET', '/v2/session/state');
    expect(state.statusCode).toBe(200);
    const who = (await asBrowser(t, owner, 'GET', '/v2/session')).json().data;
    expect(state.json().data).toEqual({ signedIn: true, session: who });
    expect(who).toMatchObject({ user: { email: t.ownerEmail }, via: 'session', csrfToken: owner.csrf });

    expect((await asBrowser(t, owner, 'DELETE', '/v2/session')).statusCode).toBe(200);
    const after = await asBrowser(t, owner, 'GET', '/v2/session/state');
    expect(after.statusCode).toBe(200);
    expect(after.json().data).toEqual({ signedIn: false });
    const unknown = await asBrowser(t, { cookie: 'annotary_session=not-a-session' }, 'GET', '/v2/session/state');
    expect(unknown.json().data).toEqual({ signedIn: false });
  });

  it('answers an API key its owner, and a wrong key 401 as every route does', async () => {
    const state = await t.call('GET', '/v2/session/state');
    expect(state.statusCode).toBe(200);
    expect(state.json().data).toMatchObject({
      signedIn: true,
      session: { user: { email: t.ownerEmail }, via: 'apikey' },
    });
    const wrong = await t.call('GET', '/v2/session/state', { key: 'ak_wrong' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ status: 'fail', message: 'invalid API key' });
  });
});
