import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/exports.js';
import { asBrowser, sessionCookieOf } from '../helpers/sessions.js';
import { ENGINES } from '../helpers/stores.js';

const tokenOf = (url: string) => url.split('/').pop() ?? '';

describe.each(ENGINES)('invite accept links on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  const clock = manualClock('2026-04-01T09:00:00.000Z');
  const invites = () => `/v2/organization/${t.orgId}/invites`;
  beforeAll(async () => {
    t = await makeTestApp(engine, { clock, env: { ANNOTARY_INVITE_HOURS: '48' } });
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Invited work' } })).json().data.project._id;
  });
  afterAll(() => t.close());

  it('answers the inviter a one-time link; the invitee sets a password and is signed in with the invited roles', async () => {
    const email = `labeler-${engine}@example.com`;
    const inv = await t.call('POST', invites(), {
      body: { to: [email], organizationRole: 'member', projectAssignments: [{ projectId, projectRole: 'Labeler' }] },
    });
    expect(inv.statusCode).toBe(201);
    const [link] = inv.json().data.links;
    expect(link).toEqual({
      email,
      url: expect.stringMatching(/^http:\/\/annotary\.test\/invite\/[\w-]{43}$/),
      expiresAt: '2026-04-03T09:00:00.000Z',
    });
    const token = tokenOf(link.url);
    const stored = await t.store.db.selectFrom('password_links').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(token);

    const about = await t.call('GET', `/v2/password-links/${token}`, { key: null });
    expect(about.json().data).toMatchObject({ purpose: 'invite', email, organizationRole: 'member' });
    // The page can say where the person goes: the invite's projects, named, with their roles.
    expect(about.json().data.projects).toEqual([{ _id: projectId, name: 'Invited work', role: 'Labeler' }]);
    const accept = await t.call('POST', `/v2/password-links/${token}`, {
      key: null,
      body: { password: 'labeler password 1', name: 'Lena Labeler' },
    });
    expect(accept.statusCode).toBe(200);
    expect(accept.json().data).toMatchObject({
      user: { email, name: 'Lena Labeler' },
      organizationRole: 'member',
      projectRoles: [{ projectId, role: 'Labeler' }],
      via: 'session',
    });
    const s = { cookie: sessionCookieOf(accept), csrf: accept.json().data.csrfToken as string };
    expect((await asBrowser(t, s, 'GET', `/v2/project/${projectId}`)).statusCode).toBe(200);
    const managerOnly = await asBrowser(t, s, 'POST', `/v2/project/${projectId}/assigned`, {
      body: { assignees: [email], role: 'Manager' },
    });
    expect(managerOnly.statusCode).toBe(403);
    // The invite is used up: gone from the list, and the link works once.
    expect((await t.call('GET', invites())).json().data.invites).toEqual([]);
    const again = await t.call('POST', `/v2/password-links/${token}`, {
      key: null,
      body: { password: 'another one 22' },
    });
    expect(again.statusCode).toBe(404);
    const signIn = await t.call('POST', '/v2/session', { key: null, body: { email, password: 'labeler password 1' } });
    expect(signIn.statusCode).toBe(200);
  });

  it('voids a link when the invite is made again, withdrawn, or past ANNOTARY_INVITE_HOURS', async () => {
    const email = `later-${engine}@example.com`;
    const first = tokenOf((await t.call('POST', invites(), { body: { to: [email] } })).json().data.links[0].url);
    const second = tokenOf((await t.call('POST', invites(), { body: { to: [email] } })).json().data.links[0].url);
    expect((await t.call('GET', `/v2/password-links/${first}`, { key: null })).statusCode).toBe(404);
    expect((await t.call('GET', `/v2/password-links/${second}`, { key: null })).statusCode).toBe(200);
    await t.call('DELETE', invites(), { body: { to: [email] } });
    expect((await t.call('GET', `/v2/password-links/${second}`, { key: null })).statusCode).toBe(404);

    const third = tokenOf((await t.call('POST', invites(), { body: { to: [email] } })).json().data.links[0].url);
    clock.advance(48 * 3_600_000);
    const late = await t.call('POST', `/v2/password-links/${third}`, {
      key: null,
      body: { password: 'too late now 1' },
    });
    expect(late.statusCode).toBe(404);
    expect(await t.store.db.selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([]);
  });

  it('gives no link to someone who already has an account (the owner included)', async () => {
    const inv = await t.call('POST', invites(), { body: { to: [t.ownerEmail] } });
    expect(inv.statusCode).toBe(201);
    expect(inv.json().data).toEqual({ invited: 1, links: [] });
  });

  it('names the field of a bad password and leaves the link usable', async () => {
    const email = `short-${engine}@example.com`;
    const token = tokenOf((await t.call('POST', invites(), { body: { to: [email] } })).json().data.links[0].url);
    const bad = await t.call('POST', `/v2/password-links/${token}`, { key: null, body: { password: 'short' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('password');
    expect((await t.call('GET', `/v2/password-links/${token}`, { key: null })).statusCode).toBe(200);
    expect((await t.call('GET', '/v2/password-links/not-a-token', { key: null })).statusCode).toBe(404);
  });
});
