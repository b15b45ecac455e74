import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/services/identity/identity.service.js';
import { setPassword } from '../../src/services/identity/sign-in.service.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { asBrowser, OWNER_PASSWORD, signInWith } from '../helpers/sessions.js';
import { ENGINES } from '../helpers/stores.js';

describe.each(ENGINES)('sign-in for people on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_BOOTSTRAP_PASSWORD: OWNER_PASSWORD } });
  });
  afterAll(() => t.close());

  it('signs the owner in with the bootstrap password: an httpOnly Lax cookie, stored only as a hash', async () => {
    const s = await signInWith(t, { email: 'Admin@Annotary.local', password: OWNER_PASSWORD });
    const cookie = s.res.cookies.find((c) => c.name === 'annotary_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie?.secure).toBeFalsy();
    const data = s.res.json().data;
    expect(data).toMatchObject({
      user: { email: 'admin@annotary.local' },
      organization: { _id: t.orgId },
      organizationRole: 'owner',
      via: 'session',
    });
    expect(data.csrfToken).toEqual(expect.any(String));
    const token = s.cookie.split('=')[1] ?? '';
    const rows = await t.store.db.selectFrom('sessions').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(JSON.stringify(row)).not.toContain(token);
    const pw = await t.store.db.selectFrom('user_passwords').select('hash').execute();
    expect(pw[0]?.hash).toMatch(/^scrypt\$ln=15,r=8,p=3\$[\w-]{22}\$[\w-]{43}$/);
  });

  it('authenticates the /v2 routes with the cookie, with the same roles as the API key, until sign-out', async () => {
    const owner = await signInWith(t, { email: t.ownerEmail, password: OWNER_PASSWORD });
    expect((await asBrowser(t, owner, 'GET', '/v2/listProjects')).statusCode).toBe(200);
    expect((await asBrowser(t, owner, 'GET', `/v2/organization/${t.orgId}/users`)).statusCode).toBe(200);

    const email = `member-${engine}@example.com`;
    const user = await createUser(t.store.db, t.ctx.clock, { email, orgId: t.orgId, orgRole: 'member' });
    await setPassword(t.store.db, t.ctx, user.id, 'member password 1');
    const member = await signInWith(t, { email, password: 'member password 1' });
    expect(member.res.json().data.organizationRole).toBe('member');
    expect((await asBrowser(t, member, 'GET', `/v2/organization/${t.orgId}/users`)).statusCode).toBe(403);
    expect((await asBrowser(t, member, 'GET', '/v2/listProjects')).statusCode).toBe(200);

    const out = await asBrowser(t, member, 'DELETE', '/v2/session');
    expect(out.statusCode).toBe(200);
    expect(out.json().data.signedOut).toBe(true);
    expect(out.cookies.find((c) => c.name === 'annotary_session')?.value).toBe('');
    const after = await asBrowser(t, member, 'GET', '/v2/listProjects');
    expect(after.statusCode).toBe(401);
    expect(after.json().message).toMatch(/sign in again/);
    // The owner's session is another one and goes on.
    expect((await asBrowser(t, owner, 'GET', '/v2/session')).statusCode).toBe(200);
  });

  it('answers who am I for the apikey header too, without a CSRF token', async () => {
    const res = await t.call('GET', '/v2/session');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ via: 'apikey', organizationRole: 'owner' });
    expect(res.json().data.csrfToken).toBeUndefined();
  });

  it('refuses cookie writes without the CSRF header, with another session token, or from another site', async () => {
    const s = await signInWith(t, { email: t.ownerEmail, password: OWNER_PASSWORD });
    const other = await signInWith(t, { email: t.ownerEmail, password: OWNER_PASSWORD });
    const body = { name: `csrf-${engine}` };
    const bare = await asBrowser(t, { cookie: s.cookie }, 'POST', '/v2/project', { body });
    expect(bare.statusCode).toBe(403);
    expect(bare.json().message).toMatch(/x-csrf-token/);
    const wrong = await asBrowser(t, { cookie: s.cookie, csrf: other.csrf }, 'POST', '/v2/project', { body });
    expect(wrong.statusCode).toBe(403);
    const crossOrigin = await asBrowser(t, s, 'POST', '/v2/project', {
      body,
      headers: { origin: 'https://evil.example' },
    });
    expect(crossOrigin.statusCode).toBe(403);
    expect(crossOrigin.json().message).toBe('cross-site request refused');
    const crossSite = await asBrowser(t, s, 'POST', '/v2/project', {
      body,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.statusCode).toBe(403);
    const signInFromElsewhere = await t.call('POST', '/v2/session', {
      key: null,
      body: { email: t.ownerEmail, password: OWNER_PASSWORD },
      headers: { origin: 'https://evil.example' },
    });
    expect(signInFromElsewhere.statusCode).toBe(403);
    expect(await t.store.db.selectFrom('projects').select('id').where('name', '=', body.name).execute()).toEqual([]);

    const same = await asBrowser(t, s, 'POST', '/v2/project', {
      body,
      headers: { origin: 'http://annotary.test', 'sec-fetch-site': 'same-origin' },
    });
    expect(same.statusCode).toBe(201);
    // Scripts with the apikey header are unaffected, whatever they send.
    const script = await t.call('POST', '/v2/project', {
      body: { name: `key-${engine}` },
      headers: { origin: 'https://evil.example' },
    });
    expect(script.statusCode).toBe(201);
  });

  it('answers a wrong e-mail, a wrong password and a user without a password the same way', async () => {
    await t.addUser(`nopassword-${engine}@example.com`);
    const answers = [];
    for (const body of [
      { email: `nobody-${engine}@example.com`, password: OWNER_PASSWORD },
      { email: t.ownerEmail, password: 'not the password' },
      { email: `nopassword-${engine}@example.com`, password: 'anything at all' },
    ]) {
      const res = await t.call('POST', '/v2/session', { key: null, body, headers: { 'x-forwarded-for': '10.9.9.9' } });
      expect(res.cookies).toEqual([]);
      answers.push([res.statusCode, res.json()]);
    }
    expect(answers[0]).toEqual([401, { status: 'fail', message: 'wrong e-mail or password' }]);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('names the field of a malformed sign-in', async () => {
    const none = await t.call('POST', '/v2/session', { key: null, body: {} });
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0].field).toBe('email');
    const both = await t.call('POST', '/v2/session', {
      key: null,
      body: { apiKey: t.ownerKey, email: t.ownerEmail, password: 'x' },
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().errors[0].field).toBe('apiKey');
    const noPassword = await t.call('POST', '/v2/session', { key: null, body: { email: t.ownerEmail } });
    expect(noPassword.json().errors[0].field).toBe('password');
  });

  it('signs in with an API key pasted once: the session stands for the key owner', async () => {
    const key = await t.addUser(`keyed-${engine}@example.com`, 'admin');
    const s = await signInWith(t, { apiKey: key });
    expect(s.res.json().data).toMatchObject({
      user: { email: `keyed-${engine}@example.com` },
      organizationRole: 'admin',
    });
    expect((await asBrowser(t, s, 'GET', `/v2/organization/${t.orgId}/users`)).statusCode).toBe(200);
    const bad = await t.call('POST', '/v2/session', { key: null, body: { apiKey: 'ak_wrong' } });
    expect(bad.statusCode).toBe(401);
  });

  it('describes the session routes in the OpenAPI document', async () => {
    const doc = (await t.call('GET', '/v2/openapi.json')).json();
    expect(Object.keys(doc.paths['/v2/session'])).toEqual(expect.arrayContaining(['post', 'get', 'delete']));
    expect(doc.paths['/v2/session'].post.security).toEqual([]);
    expect(Object.keys(doc.paths['/v2/password-links/{token}'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(doc.components.securitySchemes.session).toEqual({ type: 'apiKey', in: 'cookie', name: 'annotary_session' });
  });
});
