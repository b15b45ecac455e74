import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadOidcProviders } from '../../src/oidc-config.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { loginAtProvider, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { asBrowser, OWNER_PASSWORD, sessionCookieOf } from '../helpers/sessions.js';
import { ENGINES } from '../helpers/stores.js';

const BASE = 'http://annotary.test';
const CALLBACK = `${BASE}/v2/session/oidc/corp/callback`;

describe.each(ENGINES)('signing in with OpenID Connect on %s', (engine) => {
  let op: TestOidcProvider;
  let t: TestApp;
  let projectId: string;
  // The server's clock, steered to make an ID token old.
  const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };

  const providers = (groupRoles: object) =>
    JSON.stringify([
      {
        id: 'corp',
        name: 'Corp ID',
        issuer: op.issuer,
        clientId: op.clientId,
        clientSecret: op.clientSecret,
        scopes: 'openid email profile groups',
        groupsClaim: 'groups',
        groupRoles,
        allowedDomains: ['example.com'],
      },
    ]);

  beforeAll(async () => {
    op = await startOidcProvider({ redirectUris: [CALLBACK], postLogoutUris: [`${BASE}/signin`] });
    op.people.set('alice', { email: 'alice@example.com', email_verified: true, name: 'Alice A', groups: ['admins'] });
    op.people.set('lara', { email: 'lara@example.com', email_verified: true, groups: ['labelers', 'cafeteria'] });
    op.people.set('bob', { email: 'bob@example.com', email_verified: true, groups: ['cafeteria'] });
    op.people.set('mallory', { email: 'mallory@elsewhere.org', email_verified: true, groups: ['admins'] });
    t = await makeTestApp(engine, {
      clock,
      env: { ANNOTARY_OIDC_PROVIDERS: providers({ admins: { organizationRole: 'admin' } }) },
    });
    const created = await t.call('POST', '/v2/project', { body: { name: 'Streets' } });
    expect(created.statusCode, created.body).toBeLessThan(300);
    projectId = created.json().data.project._id as string;
    // The operator maps the project's group once the project exists (as a restart with new settings would).
    t.ctx.config.oidcProviders = loadOidcProviders({
      ANNOTARY_OIDC_PROVIDERS: providers({
        admins: { organizationRole: 'admin' },
        labelers: { projects: { [projectId]: 'Labeler' } },
      }),
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await op?.close();
  });
  beforeEach(() => {
    clock.offsetMs = 0;
    op.serveForeignKeys = false;
  });

  /** The first leg: the provider's address and the flow cookie the browser keeps. */
  async function start(next = '/projects') {
    const res = await t.call('GET', `/v2/session/oidc/corp/start?next=${encodeURIComponent(next)}`, { key: null });
    expect(res.statusCode, res.body).toBe(302);
    const flow = res.cookies.find((c) => c.name === 'annotary_oidc');
    expect(flow).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/v2/session/oidc/' });
    return { authorize: res.headers.location as string, flowCookie: `annotary_oidc=${flow?.value}` };
  }

  function callback(url: URL, flowCookie: string, headers: Record<string, string> = {}) {
    expect(url.href.startsWith(CALLBACK)).toBe(true);
    return t.call('GET', url.pathname + url.search, { key: null, headers: { cookie: flowCookie, ...headers } });
  }

  async function signInAs(login: string) {
    const { authorize, flowCookie } = await start();
    const back = await loginAtProvider(authorize, login);
    return { res: await callback(back, flowCookie), back, flowCookie };
  }

  async function auditOf(operation: string) {
    const res = await t.call('GET', `/v2/organization/${t.orgId}/audit?operation=${operation}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.records as Record<string, unknown>[];
  }

  async function userCount(): Promise<number> {
    const row = await t.store.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  function expectNoSession(res: LightMyRequestResponse) {
    expect(res.cookies.find((c) => c.name === 'annotary_session')).toBeUndefined();
  }

  it('lists the provider for the sign-in page, and sends the browser to it with PKCE, state and nonce', async () => {
    const options = await t.call('GET', '/v2/session/providers', { key: null });
    expect(options.json().data).toEqual({ providers: [{ id: 'corp', name: 'Corp ID' }], passwordSignIn: true });
    const { authorize } = await start();
    const url = new URL(authorize);
    expect(url.origin).toBe(op.issuer);
    expect(url.searchParams.get('redirect_uri')).toBe(CALLBACK);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    for (const p of ['state', 'nonce', 'code_challenge']) expect(url.searchParams.get(p)?.length).toBeGreaterThan(20);
    expect((await t.call('GET', '/v2/session/oidc/nobody/start', { key: null })).statusCode).toBe(404);
  });

  it('creates a person on first sign-in with the role their group maps to, and audits it without secrets', async () => {
    const { res, back } = await signInAs('alice');
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe('/projects');
    const cookie = sessionCookieOf(res);
    const me = await t.call('GET', '/v2/session', { key: null, headers: { cookie } });
    expect(me.json().data).toMatchObject({
      user: { email: 'alice@example.com', name: 'Alice A' },
      organizationRole: 'admin',
      via: 'session',
    });
    const [signin] = await auditOf('session.signin.oidc');
    expect(signin).toMatchObject({ operation: 'session.signin.oidc', target: { type: 'user' } });
    expect(signin?.actor).toMatch(/^session:/);
    const [made] = await auditOf('user.create.oidc');
    expect(made).toMatchObject({ target: signin?.target, fields: ['email', 'name', 'organizationRole'] });
    const everything = JSON.stringify(await auditOf('session.signin.oidc')) + JSON.stringify(made);
    expect(everything).not.toContain(back.searchParams.get('code'));
    expect(everything).not.toContain(op.clientSecret);
  });

  it('gives a project role from a group, and keeps a second sign-in of the same person to one account', async () => {
    const first = await signInAs('lara');
    expect(first.res.statusCode, first.res.body).toBe(302);
    const users = await userCount();
    const again = await signInAs('lara');
    expect(again.res.statusCode).toBe(302);
    expect(await userCount()).toBe(users);
    const me = await t.call('GET', '/v2/session', { key: null, headers: { cookie: sessionCookieOf(again.res) } });
    expect(me.json().data).toMatchObject({
      organizationRole: 'member',
      projectRoles: [{ projectId, role: 'Labeler' }],
    });
  });

  it("sets an existing person's organization role from their groups at sign-in, and audits the change", async () => {
    const carolKey = await t.addUser('carol@example.com', 'member');
    op.people.set('carol', { email: 'carol@example.com', email_verified: true, groups: ['admins'] });
    const users = await userCount();
    const { res } = await signInAs('carol');
    expect(res.statusCode, res.body).toBe(302);
    expect(await userCount()).toBe(users);
    // The new role applies to the person's API key at once.
    const byKey = await t.call('GET', '/v2/session', { key: carolKey });
    expect(byKey.json().data).toMatchObject({ user: { email: 'carol@example.com' }, organizationRole: 'admin' });
    const [changed] = await auditOf('member.role.oidc');
    expect(changed).toMatchObject({
      target: { type: 'user', id: byKey.json().data.user._id },
      fields: ['organizationRole'],
    });
  });

  it('refuses an answer whose state is not the one this browser started', async () => {
    const { authorize, flowCookie } = await start();
    const back = await loginAtProvider(authorize, 'alice');
    back.searchParams.set('state', 'state-of-another-sign-in');
    const res = await callback(back, flowCookie);
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toMatch(/does not belong to the sign-in this browser started/);
    expectNoSession(res);
    // Without the flow cookie (another browser) the answer is refused too.
    const other = await callback(back, 'annotary_oidc=not-sealed-by-us');
    expect(other.statusCode).toBe(401);
    expect(other.json().message).toMatch(/did not start this sign-in/);
  });

  it('refuses a code used a second time', async () => {
    const { res, back, flowCookie } = await signInAs('alice');
    expect(res.statusCode).toBe(302);
    const replay = await callback(back, flowCookie);
    expect(replay.statusCode).toBe(401);
    expect(replay.json().message).toMatch(/refused the sign-in code: it was used already or has expired/);
    expectNoSession(replay);
  });

  it('refuses an ID token signed by another key than the provider publishes', async () => {
    const { authorize, flowCookie } = await start();
    const back = await loginAtProvider(authorize, 'alice');
    op.serveForeignKeys = true;
    const res = await callback(back, flowCookie);
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json().message).toBe("the ID token is not signed by the identity provider's keys");
    expectNoSession(res);
  });

  it('refuses an expired ID token', async () => {
    const { authorize, flowCookie } = await start();
    const back = await loginAtProvider(authorize, 'alice');
    // The provider's ID tokens live 60 s; five minutes later (the sign-in itself still within its 10) it is old.
    clock.offsetMs = 5 * 60_000;
    const res = await callback(back, flowCookie);
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json().message).toMatch(/ID token has expired/);
    expectNoSession(res);
  });

  it('refuses an e-mail outside the allowed domains, in words, creating no one', async () => {
    const users = await userCount();
    const { res } = await signInAs('mallory');
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe(
      "e-mail addresses of elsewhere.org may not sign in here: use your organization's address",
    );
    expect(await userCount()).toBe(users);
    expectNoSession(res);
  });

  it('refuses a person whose groups map to nothing, in words, creating no one and auditing the refusal', async () => {
    const users = await userCount();
    const before = (await auditOf('session.signin.oidc.failed')).length;
    const { res } = await signInAs('bob');
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe(
      'your groups (cafeteria) give no role in Annotary: ask an administrator to map one of your groups',
    );
    expect(await userCount()).toBe(users);
    const failed = await auditOf('session.signin.oidc.failed');
    expect(failed.length).toBe(before + 1);
    expect(failed[0]).toMatchObject({ target: { type: 'oidc-provider', id: 'corp' }, userId: null, actor: null });
  });

  it('lets an invited person in with the invited roles although their groups map to nothing, and uses the invite up', async () => {
    op.people.set('ivy', { email: 'ivy@example.com', email_verified: true, name: 'Ivy I', groups: ['cafeteria'] });
    const invited = await t.call('POST', `/v2/organization/${t.orgId}/invites`, {
      body: {
        to: ['ivy@example.com'],
        organizationRole: 'admin',
        projectAssignments: [{ projectId, projectRole: 'Reviewer' }],
      },
    });
    expect(invited.statusCode, invited.body).toBe(201);
    const token = (invited.json().data.links[0].url as string).split('/').pop() as string;
    const before = (await auditOf('invite.accept')).length;

    const { res } = await signInAs('ivy');
    expect(res.statusCode, res.body).toBe(302);
    const me = await t.call('GET', '/v2/session', { key: null, headers: { cookie: sessionCookieOf(res) } });
    expect(me.json().data).toMatchObject({
      user: { email: 'ivy@example.com', name: 'Ivy I' },
      organizationRole: 'admin',
      projectRoles: [{ projectId, role: 'Reviewer' }],
    });
    // Used up: no open invite, the accept link is gone, one record of the acceptance by the person.
    const invites = await t.call('GET', `/v2/organization/${t.orgId}/invites`);
    expect((invites.json().data.invites as { email: string }[]).map((i) => i.email)).not.toContain('ivy@example.com');
    expect((await t.call('GET', `/v2/password-links/${token}`, { key: null })).statusCode).toBe(404);
    const accepts = await auditOf('invite.accept');
    expect(accepts.length).toBe(before + 1);
    expect(accepts[0]).toMatchObject({
      userId: me.json().data.user._id,
      target: { type: 'user', id: me.json().data.user._id },
      fields: ['email', 'name', 'organizationRole'],
    });
    expect((await auditOf('user.create.oidc')).map((r) => (r.target as { id: string }).id)).not.toContain(
      me.json().data.user._id,
    );
    // Signing in again keeps the invited roles: the groups mapping to nothing do not refuse an invited person.
    const again = await signInAs('ivy');
    expect(again.res.statusCode, again.res.body).toBe(302);
    const still = await t.call('GET', '/v2/session', { key: null, headers: { cookie: sessionCookieOf(again.res) } });
    expect(still.json().data).toMatchObject({
      organizationRole: 'admin',
      projectRoles: [{ projectId, role: 'Reviewer' }],
    });
  });

  it('still refuses an invited address outside the allowed domains, leaving the invite open', async () => {
    op.people.set('olga', { email: 'olga@elsewhere.org', email_verified: true, groups: ['admins'] });
    const invited = await t.call('POST', `/v2/organization/${t.orgId}/invites`, {
      body: { to: ['olga@elsewhere.org'] },
    });
    expect(invited.statusCode, invited.body).toBe(201);
    const { res } = await signInAs('olga');
    expect(res.statusCode).toBe(403);
    const invites = await t.call('GET', `/v2/organization/${t.orgId}/invites`);
    expect((invites.json().data.invites as { email: string }[]).map((i) => i.email)).toContain('olga@elsewhere.org');
  });

  it('sends a browser back to the sign-in page with the refusal in words', async () => {
    const { authorize, flowCookie } = await start();
    const back = await loginAtProvider(authorize, 'bob');
    const res = await callback(back, flowCookie, { accept: 'text/html,application/xhtml+xml' });
    expect(res.statusCode).toBe(302);
    const to = new URL(res.headers.location as string, BASE);
    expect(to.pathname).toBe('/signin');
    expect(to.searchParams.get('error')).toMatch(/give no role in Annotary/);
  });

  it("signs out of the console and answers the provider's end-session address", async () => {
    const { res } = await signInAs('alice');
    const cookies = res.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const me = await t.call('GET', '/v2/session', { key: null, headers: { cookie: cookies } });
    const csrf = me.json().data.csrfToken as string;
    const out = await asBrowser(t, { cookie: cookies, csrf }, 'DELETE', '/v2/session');
    expect(out.statusCode, out.body).toBe(200);
    const end = new URL(out.json().data.endSessionUrl as string);
    expect(`${end.origin}${end.pathname}`).toBe(`${op.issuer}/session/end`);
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe(`${BASE}/signin`);
    expect(end.searchParams.get('id_token_hint')?.split('.').length).toBe(3);
    const after = await t.call('GET', '/v2/session', { key: null, headers: { cookie: sessionCookieOf(res) } });
    expect(after.statusCode).toBe(401);
  });

  it('turns password sign-in off while API keys keep working', async () => {
    const off = await makeTestApp(engine, {
      env: {
        ANNOTARY_OIDC_ISSUER: op.issuer,
        ANNOTARY_OIDC_CLIENT_ID: op.clientId,
        ANNOTARY_PASSWORD_SIGNIN: 'false',
        ANNOTARY_BOOTSTRAP_PASSWORD: OWNER_PASSWORD,
      },
    });
    try {
      const options = await off.call('GET', '/v2/session/providers', { key: null });
      expect(options.json().data).toEqual({
        providers: [{ id: 'sso', name: 'single sign-on' }],
        passwordSignIn: false,
      });
      const res = await off.call('POST', '/v2/session', {
        key: null,
        body: { email: off.ownerEmail, password: OWNER_PASSWORD },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toBe('password sign-in is turned off for this organization: use single sign-on');
      expectNoSession(res);
      expect((await off.call('GET', '/v2/session')).statusCode).toBe(200);
      const byKey = await off.call('POST', '/v2/session', { key: null, body: { apiKey: off.ownerKey } });
      expect(byKey.statusCode).toBe(200);
    } finally {
      await off.close();
    }
  });
});
