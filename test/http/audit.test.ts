import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit } from '../../src/services/audit/audit.service.js';
import { pruneAuditRecords } from '../../src/services/audit/audit-retention.js';
import { createOrganization, createUser, issueApiKey } from '../../src/services/identity/identity.service.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { OWNER_PASSWORD, signInWith } from '../helpers/sessions.js';
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
      env: { ANNOTARY_BOOTSTRAP_PASSWORD: OWNER_PASSWORD, ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true' },
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

  it('filters by operation, person, target and time, and pages with a cursor', async () => {
    const base = `/v2/organization/${t.orgId}/audit`;
    const updates = await call('GET', `${base}?operation=project.update`);
    expect(updates.json().data.records.map((r: AuditRecordView) => r.operation)).toEqual(['project.update']);
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
    expect(lines.map((l) => l.operation)).toEqual(['project.update']);
  });

  it('is read-only and for owners and admins of the organization only', async () => {
    const base = `/v2/organization/${t.orgId}/audit`;
    const before = await t.store.db.selectFrom('audit_log').selectAll().execute();
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect((await call(method, base, {})).statusCode).toBeGreaterThanOrEqual(404);
    }
    await expect(t.store.db.updateTable('audit_log').set({ operation: 'forged' }).execute()).rejects.toThrow(
      /append-only/,
    );
    expect(await t.store.db.selectFrom('audit_log').selectAll().execute()).toEqual(before);

    const memberKey = await t.addUser(`reader-${engine}@example.com`, 'member');
    expect((await call('GET', base, undefined, memberKey)).statusCode).toBe(403);
    expect((await call('GET', `${base}/export`, undefined, memberKey)).statusCode).toBe(403);

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
