import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit } from '../../src/services/audit/audit.service.js';
import { pruneAuditRecords } from '../../src/services/audit/audit-retention.js';
import { createOrganization, createUser, issueApiKey } from '../../src/services/identity/identity.service.js';
import { resetLink, resetPasswordTo } from '../../src/services/identity/password-reset.service.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { asBrowser, OWNER_PASSWORD, signInWith } from '../helpers/sessions.js';
import { hookWorkflow } from '../helpers/webhooks.js';
import { ENGINES } from '../helpers/stores.js';

/**
 * Every change appends one audit record in its own transaction: who (user, key or session id),
 * from where, what, on which target, which field names. Never a secret; nothing on failure;
 * owners and admins of the organization only.
 */

interface AuditRecordView {
  _id: string;
  at: string;
  userId: string | null;
  actor: string | null;
  address: string | null;
  operation: string;
  target: { type: string; id: string };
  projectId: string | null;
  fields: string[];
}

const SECRET = 'audit-secret-value-9f2c';
const ADDRESS = '192.0.2.44';

describe.each(ENGINES)('the audit log on %s', (engine) => {
  let t: TestApp;
  let seen: string[] = [];
  beforeAll(async () => {
    t = await makeTestApp(engine, {
      env: {
        ANNOTARY_BOOTSTRAP_PASSWORD: OWNER_PASSWORD,
        ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true',
        // Many changes in a minute: more than the standard plan's requests.
        ANNOTARY_DEFAULT_PLAN: 'enterprise',
      },
    });
  });
  afterAll(() => t.close());

  const call = (method: string, url: string, body?: unknown, key = t.ownerKey) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { apikey: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      remoteAddress: ADDRESS,
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  /** The records written since the last call, oldest first; the raw rows hold no secret. */
  async function newRecords(): Promise<AuditRecordView[]> {
    const res = await call('GET', `/v2/organization/${t.orgId}/audit?limit=1000`);
    expect(res.statusCode, res.body).toBe(200);
    const all = (res.json().data.records as AuditRecordView[]).reverse();
    const fresh = all.filter((r) => !seen.includes(r._id));
    seen = all.map((r) => r._id);
    const rows = await t.store.db.selectFrom('audit_log').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(SECRET);
    expect(JSON.stringify(rows)).not.toContain(t.ownerKey);
    return fresh;
  }

  async function ownerKeyId(): Promise<string> {
    const me = await call('GET', '/v2/session');
    return (
      await t.store.db
        .selectFrom('api_keys')
        .select('id')
        .where('user_id', '=', me.json().data.user._id)
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow()
    ).id;
  }

  it('records a project created, updated and deleted: one record each, with the field names', async () => {
    await newRecords();
    const created = await call('POST', '/v2/project', { name: 'Audited', description: 'd' });
    expect(created.statusCode).toBe(201);
    const projectId = created.json().data.project._id as string;
    const [create, ...moreCreate] = await newRecords();
    expect(moreCreate).toEqual([]);
    expect(create).toMatchObject({
      operation: 'project.create',
      target: { type: 'project', id: projectId },
      projectId,
      address: ADDRESS,
      actor: await ownerKeyId(),
      fields: ['description', 'name'],
    });
    expect(create?.userId).toEqual(expect.any(String));

    expect(
      (await call('POST', `/v2/project/${projectId}`, { name: 'Renamed', categorySchema: { tools: [] } })).statusCode,
    ).toBe(200);
    const updates = await newRecords();
    expect(updates).toEqual([
      expect.objectContaining({ operation: 'project.update', fields: ['categorySchema', 'name'] }),
    ]);

    // A refused change writes nothing.
    expect((await call('POST', `/v2/project/${projectId}`, { name: '  ' })).statusCode).toBe(400);
    expect(await newRecords()).toEqual([]);

    expect((await call('DELETE', `/v2/project/${projectId}`)).statusCode).toBe(200);
    expect(await newRecords()).toEqual([expect.objectContaining({ operation: 'project.delete', projectId })]);
  });

  it('records members added, their role changed and removed; a refused change writes none', async () => {
    await newRecords();
    const users = `/v2/organization/${t.orgId}/users`;
    const email = `audited-${engine}@example.com`;
    expect((await call('POST', users, { users: [{ email }] })).statusCode).toBe(201);
    const [added] = await newRecords();
    expect(added).toMatchObject({
      operation: 'member.add',
      target: { type: 'user' },
      fields: ['email', 'organizationRole'],
    });
    expect((await call('POST', users, { users: [{ email, organizationRole: 'admin' }] })).statusCode).toBe(201);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'member.role', target: added?.target, fields: ['organizationRole'] }),
    ]);
    // The owner cannot be removed: the whole request is refused, nothing recorded.
    expect((await call('DELETE', users, { users: [email, t.ownerEmail] })).statusCode).toBe(400);
    expect(await newRecords()).toEqual([]);
    expect((await call('DELETE', users, { users: [email] })).statusCode).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'member.remove', target: added?.target }),
    ]);
  });

  it('records storages and plugins by field names, never their secrets', async () => {
    await newRecords();
    const storage = await call('POST', '/v2/storages', {
      name: 'aws',
      provider: 'AWS',
      publicKey: 'AKIAEXAMPLE',
      privateKey: SECRET,
    });
    expect(storage.statusCode, storage.body).toBe(201);
    const storageId = storage.json().data.storage._id as string;
    expect(await newRecords()).toEqual([
      expect.objectContaining({
        operation: 'storage.create',
        target: { type: 'storage', id: storageId },
        fields: ['name', 'privateKey', 'provider', 'publicKey'],
      }),
    ]);
    expect((await call('DELETE', `/v2/storages/${storageId}`)).statusCode).toBe(200);
    expect(await newRecords()).toEqual([expect.objectContaining({ operation: 'storage.delete' })]);

    const plugin = await call('POST', '/v2/plugins', {
      name: 'Model',
      url: 'https://models.example.com/x',
      secret: SECRET,
    });
    expect(plugin.statusCode, plugin.body).toBe(201);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'plugin.create', fields: ['name', 'secret', 'url'] }),
    ]);
  });

  it('records sign-ins with the session id, failed sign-ins, and a new API key without the key', async () => {
    await newRecords();
    const signedIn = await signInWith(t, { email: t.ownerEmail, password: OWNER_PASSWORD });
    const [signIn] = await newRecords();
    expect(signIn).toMatchObject({ operation: 'session.signin', actor: expect.stringMatching(/^session:/) });
    expect(signedIn.cookie).not.toContain(signIn?.actor?.slice('session:'.length) ?? '-');

    const failed = await t.call('POST', '/v2/session', { key: null, body: { email: t.ownerEmail, password: SECRET } });
    expect(failed.statusCode).toBe(401);
    expect(await newRecords()).toEqual([expect.objectContaining({ operation: 'session.signin.failed', actor: null })]);

    const renewed = await call('POST', '/v2/session/api-key');
    expect(renewed.statusCode).toBe(201);
    const newKey = renewed.json().data.apiKey as string;
    t.ownerKey = newKey;
    const [renew] = await newRecords();
    expect(renew).toMatchObject({ operation: 'apikey.renew', target: { type: 'apikey', id: await ownerKeyId() } });
    const rows = await t.store.db.selectFrom('audit_log').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(newKey);
  });

  it('records an export requested, with the names of its filters', async () => {
    const made = await call('POST', '/v2/project', { name: 'Exported' });
    const projectId = made.json().data.project._id as string;
    await newRecords();
    const res = await call('GET', `/v2/export?project=${projectId}&format=json&status=Completed`);
    expect(res.statusCode, res.body).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'export.request', projectId, fields: ['status'] }),
    ]);
  });

  it('records tasks moved by people: one record per forward or requeue, with the options asked', async () => {
    const made = await call('POST', '/v2/project', { name: 'Moved' });
    const project = made.json().data.project as { _id: string; stages: { id: string; type: string }[] };
    const [start, label] = project.stages;
    await newRecords();
    const forward = await call('POST', `/v2/project/${project._id}/forward`, { stageId: start!.id });
    expect(forward.statusCode, forward.body).toBe(200);
    const requeue = await call('POST', `/v2/project/${project._id}/requeueTasks`, {
      toStageId: label!.id,
      options: { removeAnnotations: true, removeAssignee: false },
    });
    expect(requeue.statusCode, requeue.body).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'tasks.forward', target: { type: 'stage', id: start!.id }, fields: [] }),
      expect.objectContaining({
        operation: 'tasks.requeue',
        target: { type: 'stage', id: label!.id },
        fields: ['removeAnnotations'],
      }),
    ]);
    // A move to a stage the project does not have is refused, and writes nothing.
    expect((await call('POST', `/v2/project/${project._id}/requeueTasks`, { toStageId: 'nowhere' })).statusCode).toBe(
      400,
    );
    expect(await newRecords()).toEqual([]);
  });

  it('records invites made, accepted and deleted, and project roles given; a refused one writes none', async () => {
    const made = await call('POST', '/v2/project', { name: 'Invited to' });
    const projectId = made.json().data.project._id as string;
    const invites = `/v2/organization/${t.orgId}/invites`;
    const first = `invitee-${engine}@example.com`;
    const second = `invitee2-${engine}@example.com`;
    await newRecords();
    // A wrong project role refuses the whole request: no invite, no record.
    const refused = await call('POST', invites, {
      to: [first],
      projectAssignments: [{ projectId, projectRole: 'Boss' }],
    });
    expect(refused.statusCode).toBe(400);
    expect(await newRecords()).toEqual([]);

    const invited = await call('POST', invites, {
      to: [first, second],
      organizationRole: 'member',
      projectAssignments: [{ projectId, projectRole: 'Labeler' }],
    });
    expect(invited.statusCode, invited.body).toBe(201);
    const made2 = await newRecords();
    expect(made2).toEqual([
      expect.objectContaining({
        operation: 'invite.create',
        target: { type: 'invite', id: expect.any(String) },
        fields: ['email', 'organizationRole', 'projectAssignments'],
      }),
      expect.objectContaining({ operation: 'invite.create' }),
    ]);
    // The accept link's token is a secret: no record holds it.
    const links = invited.json().data.links as { email: string; url: string }[];
    const token = links
      .find((l) => l.email === first)!
      .url.split('/')
      .pop()!;
    const accepted = await t.app.inject({
      method: 'POST',
      url: `/v2/password-links/${token}`,
      headers: { 'content-type': 'application/json' },
      remoteAddress: ADDRESS,
      payload: JSON.stringify({ password: SECRET }),
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const [accept, signIn, ...more] = await newRecords();
    expect(more).toEqual([]);
    expect(accept).toMatchObject({
      operation: 'invite.accept',
      target: { type: 'user' },
      address: ADDRESS,
      actor: null,
      fields: ['email', 'organizationRole', 'password'],
    });
    expect(accept?.userId).toBe(accept?.target.id);
    expect(signIn).toMatchObject({ operation: 'session.signin', userId: accept?.userId });
    const rows = JSON.stringify(await t.store.db.selectFrom('audit_log').selectAll().execute());
    expect(rows).not.toContain(token);

    expect((await call('DELETE', invites, { invites: [second, `nobody-${engine}@example.com`] })).statusCode).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'invite.delete', target: made2[1]!.target }),
    ]);
    // Nothing left to delete: nothing changed, nothing recorded.
    expect((await call('DELETE', invites, { invites: [second] })).statusCode).toBe(200);
    expect(await newRecords()).toEqual([]);

    const assigned = `/v2/project/${projectId}/assigned`;
    expect((await call('POST', assigned, { assignees: [first], role: 'Chief' })).statusCode).toBe(400);
    expect(await newRecords()).toEqual([]);
    expect((await call('POST', assigned, { assignees: [first, second], role: 'Reviewer' })).statusCode).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({
        operation: 'project.member.role',
        target: { type: 'member', id: first },
        projectId,
        fields: ['projectRole'],
      }),
      expect.objectContaining({ operation: 'project.member.role', target: { type: 'member', id: second } }),
    ]);
  });

  it('records ontology, workflow with its webhooks, and benchmark settings as project updates, never a webhook secret', async () => {
    const made = await call('POST', '/v2/project', { name: 'Configured' });
    const projectId = made.json().data.project._id as string;
    await newRecords();
    const hook = { url: 'https://hooks.example.com/in', authType: 'secret' as const, secret: SECRET };
    const saved = await call('POST', `/v2/project/${projectId}`, { stages: hookWorkflow(hook) });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'project.update', projectId, fields: ['stages'] }),
    ]);
    const ontology = { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000' }] };
    expect((await call('POST', `/v2/project/${projectId}`, { categorySchema: ontology })).statusCode).toBe(200);
    expect(await newRecords()).toEqual([expect.objectContaining({ fields: ['categorySchema'] })]);
    const bench = { benchmarkEnabled: true, benchmarkRatio: 0.2, benchmarkThreshold: 60 };
    expect((await call('POST', `/v2/project/${projectId}`, bench)).statusCode).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ fields: ['benchmarkEnabled', 'benchmarkRatio', 'benchmarkThreshold'] }),
    ]);
    // A webhook deleted with its stage: one record; a workflow refused: none.
    const stages = [
      { id: 'Start', type: 'Start', name: 'Start', next: ['Complete'] },
      { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
    ];
    expect((await call('POST', `/v2/project/${projectId}`, { stages: [{ id: 'Start' }] })).statusCode).toBe(400);
    expect(await newRecords()).toEqual([]);
    expect((await call('POST', `/v2/project/${projectId}`, { stages })).statusCode).toBe(200);
    expect(await newRecords()).toEqual([expect.objectContaining({ operation: 'project.update', fields: ['stages'] })]);
  });

  it('records answers and task moves by people: save, submit, review, skip, assign, priority, re-runs', async () => {
    const labeler = `labeler-${engine}@example.com`;
    const labelerKey = await t.addUser(labeler);
    const made = await call('POST', '/v2/project', { name: 'Worked' });
    const projectId = made.json().data.project._id as string;
    const stages = [
      { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
      { id: 'Label', type: 'Label', name: 'Label', next: ['Review'] },
      { id: 'Review', type: 'Review', name: 'Review', next: ['Complete', 'Label'] },
      { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
    ];
    expect((await call('POST', `/v2/project/${projectId}`, { stages, taskSkipEnabled: true })).statusCode).toBe(200);
    expect(
      (await call('POST', `/v2/project/${projectId}/assigned`, { assignees: [labeler], role: 'Labeler' })).statusCode,
    ).toBe(200);
    const imported = await call('POST', `/v2/project/${projectId}/cloud`, {
      assets: [{ data: 'https://cdn.example.com/a.jpg' }, { data: 'https://cdn.example.com/b.jpg' }],
    });
    expect(imported.statusCode, imported.body).toBe(201);
    const [a, b] = imported.json().data.assets.map((x: { taskId: string }) => x.taskId) as string[];
    const who = (await call('GET', '/v2/session', undefined, labelerKey)).json().data.user._id as string;
    await newRecords();

    const assign = await call('POST', '/v2/task/assign', {
      project: projectId,
      tasks: [a, b],
      stage: 'Label',
      user: labeler,
    });
    expect(assign.statusCode, assign.body).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'tasks.assign', target: { type: 'stage', id: 'Label' }, projectId }),
    ]);

    // A refused answer (a task that is not the labeler's to answer) writes nothing.
    const other = await t.addUser(`other-${engine}@example.com`);
    expect((await call('POST', `/v2/annotate/${a}`, { answer: {} }, other)).statusCode).toBe(404);
    expect(await newRecords()).toEqual([]);

    expect((await call('POST', `/v2/annotate/${a}`, { answer: {}, duration: 5 }, labelerKey)).statusCode).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({
        operation: 'task.annotate',
        userId: who,
        target: { type: 'task', id: a },
        projectId,
        fields: ['answer', 'duration'],
      }),
    ]);
    const submit = await call('POST', `/v2/annotate/${a}?nextStage=true`, { answer: {} }, labelerKey);
    expect(submit.statusCode, submit.body).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'task.submit', target: { type: 'task', id: a }, fields: ['answer'] }),
    ]);
    const review = await call('POST', `/v2/review/${a}`, { reviewStatus: 'Rejected' });
    expect(review.statusCode, review.body).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'task.review', target: { type: 'task', id: a }, fields: ['reviewStatus'] }),
    ]);
    // Reviewing a task that is not in a Review stage is refused: nothing recorded.
    expect((await call('POST', `/v2/review/${b}`, { reviewStatus: 'Accepted' })).statusCode).toBe(409);
    expect(await newRecords()).toEqual([]);

    expect((await call('POST', `/v2/task/${b}/skip`, undefined, labelerKey)).statusCode).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'task.skip', target: { type: 'task', id: b }, fields: [] }),
    ]);
    const priority = await call('POST', `/v2/project/${projectId}/updatePriority`, { priority: 3 });
    expect(priority.statusCode, priority.body).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'tasks.priority', target: { type: 'project', id: projectId } }),
    ]);
    expect((await call('POST', `/v2/project/${projectId}/rerun-webhook`, {})).statusCode).toBe(200);
    expect((await call('POST', `/v2/project/${projectId}/rerun-plugin`, {})).statusCode).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'webhook.rerun', projectId }),
      expect.objectContaining({ operation: 'plugin.rerun', projectId, fields: [] }),
    ]);

    // Benchmarks: marking and unmarking a task, one record each.
    const marked = await call('POST', `/v2/project/${projectId}/benchmarks`, { tasks: [b], answer: {} });
    expect(marked.statusCode, marked.body).toBe(200);
    expect((await call('DELETE', `/v2/project/${projectId}/benchmarks`, { tasks: [b] })).statusCode).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'task.benchmark.mark', target: { type: 'task', id: b } }),
      expect.objectContaining({ operation: 'task.benchmark.unmark', target: { type: 'task', id: b } }),
    ]);
  });

  it('records sign-outs, and password resets made with the command line as the command line', async () => {
    const email = `reset-${engine}@example.com`;
    await t.addUser(email);
    await newRecords();
    await resetLink(t.ctx, email);
    await resetPasswordTo(t.ctx, email, SECRET);
    const [link, reset, ...more] = await newRecords();
    expect(more).toEqual([]);
    expect(link).toMatchObject({ operation: 'user.password.link', userId: null, actor: 'cli', address: null });
    expect(reset).toMatchObject({ operation: 'user.password', actor: 'cli', fields: ['password'] });

    const signedIn = await signInWith(t, { email, password: SECRET });
    const [signIn] = await newRecords();
    const out = await asBrowser(t, signedIn, 'DELETE', '/v2/session');
    expect(out.statusCode, out.body).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'session.signout', actor: signIn?.actor, userId: signIn?.userId }),
    ]);
    // Signing out with a key ends no session and records nothing.
    expect((await call('DELETE', '/v2/session')).statusCode).toBe(200);
    expect(await newRecords()).toEqual([]);
  });

  it('filters by operation, person, target and time, and pages with a cursor', async () => {
    const base = `/v2/organization/${t.orgId}/audit`;
    const updates = (await call('GET', `${base}?operation=project.update&limit=1000`)).json().data
      .records as AuditRecordView[];
    expect(updates.length).toBeGreaterThan(1);
    expect(updates.every((r) => r.operation === 'project.update')).toBe(true);
    const all = (await call('GET', `${base}?limit=1000`)).json().data.records as AuditRecordView[];
    const target = all.find((r) => r.operation === 'storage.create')!.target.id;
    const byTarget = (await call('GET', `${base}?targetId=${target}`)).json().data.records as AuditRecordView[];
    expect(byTarget.map((r) => r.operation).sort()).toEqual(['storage.create', 'storage.delete']);
    const person = all[0]!.userId!;
    const byPerson = (await call('GET', `${base}?userId=${person}&limit=1000`)).json().data
      .records as AuditRecordView[];
    expect(byPerson.length).toBeGreaterThan(0);
    expect(byPerson.every((r) => r.userId === person)).toBe(true);
    const operation = byPerson[0]!.operation;
    const byPair = (await call('GET', `${base}?userId=${person}&operation=${operation}&limit=1000`)).json().data
      .records as AuditRecordView[];
    expect(byPair.map((r) => r._id)).toEqual(byPerson.filter((r) => r.operation === operation).map((r) => r._id));
    expect((await call('GET', `${base}?userId=${person}&operation=no.such`)).json().data.records).toEqual([]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await call('GET', `${base}?from=${future}`)).json().data.records).toEqual([]);
    expect((await call('GET', `${base}?to=${future}&limit=1000`)).json().data.records).toHaveLength(all.length);
    expect((await call('GET', `${base}?from=yesterday`)).json()).toMatchObject({ errors: [{ field: 'from' }] });

    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await call('GET', `${base}?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      const data = res.json().data as { records: AuditRecordView[]; nextCursor: string | null };
      pages.push(...data.records.map((r) => r._id));
      cursor = data.nextCursor;
    } while (cursor);
    expect(pages).toEqual(all.map((r) => r._id));

    const ndjson = await call('GET', `${base}/export?operation=project.update`);
    expect(ndjson.statusCode).toBe(200);
    expect(ndjson.headers['content-type']).toContain('application/x-ndjson');
    const lines = ndjson.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditRecordView);
    expect(lines.map((l) => l._id)).toEqual(updates.map((r) => r._id));
  });

  it('is read-only and for owners and admins of the organization only', async () => {
    const base = `/v2/organization/${t.orgId}/audit`;
    const made = await call('POST', '/v2/project', { name: 'Read-only' });
    expect(made.statusCode).toBe(201);
    const before = await t.store.db.selectFrom('audit_log').selectAll().orderBy('id').execute();
    const one = before[0]!.id;
    for (const url of [base, `${base}/${one}`, `${base}/export`]) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        expect((await call(method, url, {})).statusCode).toBeGreaterThanOrEqual(404);
      }
    }
    await expect(t.store.db.updateTable('audit_log').set({ operation: 'forged' }).execute()).rejects.toThrow(
      /append-only/,
    );
    expect(await t.store.db.selectFrom('audit_log').selectAll().orderBy('id').execute()).toEqual(before);

    const memberKey = await t.addUser(`reader-${engine}@example.com`, 'member');
    expect((await call('GET', base, undefined, memberKey)).statusCode).toBe(403);
    expect((await call('GET', `${base}/export`, undefined, memberKey)).statusCode).toBe(403);
    // A project's Labeler is a member of the organization: the same 403.
    const labelerKey = await t.addUser(`labels-${engine}@example.com`, 'member');
    const assigned = await call('POST', `/v2/project/${made.json().data.project._id as string}/assigned`, {
      assignees: [`labels-${engine}@example.com`],
      role: 'Labeler',
    });
    expect(assigned.statusCode, assigned.body).toBe(200);
    expect((await call('GET', base, undefined, labelerKey)).statusCode).toBe(403);
    expect((await call('GET', `${base}/export`, undefined, labelerKey)).statusCode).toBe(403);
    const adminKey = await t.addUser(`auditor-${engine}@example.com`, 'admin');
    expect((await call('GET', base, undefined, adminKey)).statusCode).toBe(200);

    const other = await createOrganization(t.store.db, t.ctx.clock, 'Other', 'standard');
    const stranger = await createUser(t.store.db, t.ctx.clock, {
      email: `o-${engine}@example.com`,
      orgId: other.id,
      orgRole: 'owner',
    });
    const strangerKey = await issueApiKey(t.store.db, t.ctx.clock, stranger.id);
    expect((await call('GET', base, undefined, strangerKey)).statusCode).toBe(404);
    expect((await call('GET', `${base}/export`, undefined, strangerKey)).statusCode).toBe(404);
    const own = await call('GET', `/v2/organization/${other.id}/audit`, undefined, strangerKey);
    expect(own.statusCode).toBe(200);
    expect(own.json().data.records).toEqual([]);
  });

  it('keeps records for the configured days: the retention sweep deletes only older ones', async () => {
    const now = Date.now();
    const actor = { orgId: t.orgId, userId: null, keyId: null, address: null };
    const old = { operation: 'project.update', targetType: 'project', targetId: 'retention-old' };
    await audit(t.store.db, { now: () => now - 40 * 86_400_000 }, actor, old);
    await audit(t.store.db, { now: () => now - 20 * 86_400_000 }, actor, { ...old, targetId: 'retention-kept' });
    const before = await t.store.db.selectFrom('audit_log').select('target_id').execute();
    expect(await pruneAuditRecords(t.store.db, now, 0)).toBe(0);
    expect(await pruneAuditRecords(t.store.db, now, 30)).toBe(1);
    const after = await t.store.db.selectFrom('audit_log').select('target_id').execute();
    expect(after.map((r) => r.target_id).sort()).toEqual(
      before
        .map((r) => r.target_id)
        .filter((id) => id !== 'retention-old')
        .sort(),
    );
  });
});
