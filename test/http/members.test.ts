import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/services/identity/identity.service.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

describe.each(ENGINES)('identity and members on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(() => t.close());

  it('keeps one active key per user: a new key revokes the old one', async () => {
    const first = await t.addUser(`rotate-${engine}@example.com`);
    expect((await t.call('GET', '/v2/listProjects', { key: first })).statusCode).toBe(200);
    const user = await t.store.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', `rotate-${engine}@example.com`)
      .executeTakeFirstOrThrow();
    const second = await issueApiKey(t.store.db, t.ctx.clock, user.id);
    expect((await t.call('GET', '/v2/listProjects', { key: first })).statusCode).toBe(401);
    expect((await t.call('GET', '/v2/listProjects', { key: second })).statusCode).toBe(200);
    const stored = await t.store.db.selectFrom('api_keys').select(['key_hash', 'prefix']).execute();
    for (const row of stored) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.key_hash).not.toContain(second);
    }
  });

  it('adds, lists and removes organization users', async () => {
    const base = `/v2/organization/${t.orgId}/users`;
    const add = await t.call('POST', base, {
      body: {
        users: [
          { email: `Ann-${engine}@Example.com`, organizationRole: 'admin' },
          { email: `bob-${engine}@example.com` },
        ],
      },
    });
    expect(add.statusCode).toBe(201);
    expect(
      add.json().data.users.map((u: { email: string; organizationRole: string }) => [u.email, u.organizationRole]),
    ).toEqual([
      [`ann-${engine}@example.com`, 'admin'],
      [`bob-${engine}@example.com`, 'member'],
    ]);
    const list = (await t.call('GET', base)).json().data;
    expect(list.users.map((u: { email: string }) => u.email)).toEqual(
      expect.arrayContaining([`ann-${engine}@example.com`, 'admin@annotary.local']),
    );
    expect(list.total).toBe(list.users.length);
    const badRole = await t.call('POST', base, {
      body: { users: [{ email: 'x@example.com', organizationRole: 'owner' }] },
    });
    expect(badRole.statusCode).toBe(400);
    expect(badRole.json().errors[0].field).toBe('users[0].organizationRole');
    const del = await t.call('DELETE', base, { body: { users: [`bob-${engine}@example.com`] } });
    expect(del.json().data.removed).toBe(1);
    const owner = await t.call('DELETE', base, { body: { users: ['admin@annotary.local'] } });
    expect(owner.statusCode).toBe(400);
  });

  it('lets only owners and admins manage members, and hides other organizations', async () => {
    const memberKey = await t.addUser(`plain-${engine}@example.com`);
    expect((await t.call('GET', `/v2/organization/${t.orgId}/users`, { key: memberKey })).statusCode).toBe(403);
    expect((await t.call('GET', '/v2/organization/0123456789abcdef01234567/users')).statusCode).toBe(404);
  });

  it('records invites with project assignments that take effect for the invited e-mail', async () => {
    const project = (await t.call('POST', '/v2/project', { body: { name: 'Invited' } })).json().data.project;
    const base = `/v2/organization/${t.orgId}/invites`;
    const email = `invitee-${engine}@example.com`;
    const inv = await t.call('POST', base, {
      body: {
        to: [email],
        organizationRole: 'member',
        projectAssignments: [{ projectId: project._id, projectRole: 'Reviewer' }],
      },
    });
    expect(inv.statusCode).toBe(201);
    const list = (await t.call('GET', base)).json().data;
    expect(list.invites).toEqual([expect.objectContaining({ email, organizationRole: 'member' })]);
    const key = await t.addUser(email);
    const seen = await t.call('GET', `/v2/project/${project._id}`, { key });
    expect(seen.json().data.project.role).toBe('Reviewer');
    const bad = await t.call('POST', base, {
      body: {
        to: ['z@example.com'],
        projectAssignments: [{ projectId: 'ffffffffffffffffffffffff', projectRole: 'Lead' }],
      },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('projectAssignments[0].projectId');
    const del = await t.call('DELETE', base, { body: { to: [email] } });
    expect(del.json().data.deleted).toBe(1);
  });
});
