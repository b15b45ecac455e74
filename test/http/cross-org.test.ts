import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createUser, issueApiKey } from '../../src/services/identity/identity.service.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Nothing is learned or linked across organizations: another organization's ids answer exactly
 * like ids that do not exist, and storage references are checked when they are written.
 */
const UNKNOWN_ID = 'ffffffffffffffffffffffff';
const S3 = { provider: 'CUSTOM_S3', host: 'https://s3.example.com', publicKey: 'k', privateKey: 's' };

describe.each(ENGINES)('across organizations on %s', (engine) => {
  let t: TestApp;
  let otherKey: string;
  let projectId: string;
  let theirAsset: string;
  let theirStorage: string;
  let ourStorage: string;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    const org = await createOrganization(t.store.db, t.ctx.clock, 'Other', 'standard');
    const owner = await createUser(t.store.db, t.ctx.clock, {
      email: `other-${engine}@example.com`,
      orgId: org.id,
      orgRole: 'owner',
    });
    otherKey = await issueApiKey(t.store.db, t.ctx.clock, owner.id);
    const call = (key: string, method: string, url: string, body: unknown) =>
      t.call(method, url, { key, body }).then((res) => {
        expect(res.statusCode, res.body).toBeLessThan(300);
        return res.json().data;
      });
    const theirProject = (await call(otherKey, 'POST', '/v2/project', { name: 'Theirs' })).project._id;
    await call(otherKey, 'POST', `/v2/batches/${theirProject}`, { batches: 'b1' });
    const imported = await call(otherKey, 'POST', `/v2/project/${theirProject}/cloud`, {
      assets: [{ data: 'https://cdn.example.com/theirs.jpg' }],
    });
    theirAsset = imported.assets[0]._id;
    theirStorage = (await call(otherKey, 'POST', '/v2/storages', { name: 'theirs', ...S3 })).storage._id;
    ourStorage = (await call(t.ownerKey, 'POST', '/v2/storages', { name: 'ours', ...S3 })).storage._id;
    projectId = (await call(t.ownerKey, 'POST', '/v2/project', { name: 'Ours' })).project._id;
    await call(t.ownerKey, 'POST', `/v2/batches/${projectId}`, { batches: 'b1' });
  });
  afterAll(() => t.close());

  it('answers /assignBatches with another organization’s asset exactly like an unknown asset', async () => {
    expect(theirAsset).toMatch(/^[0-9a-f]{24}$/);
    const theirs = await t.call('POST', '/v2/assignBatches', { body: { batches: ['b1'], assets: [theirAsset] } });
    const unknown = await t.call('POST', '/v2/assignBatches', { body: { batches: ['b1'], assets: [UNKNOWN_ID] } });
    expect(unknown.statusCode).toBe(400);
    expect(theirs.statusCode).toBe(unknown.statusCode);
    expect(theirs.json()).toEqual(unknown.json());
    expect(unknown.json().errors).toEqual([{ field: 'assets[0]', message: 'no such asset' }]);
  });

  it('refuses another organization’s storage on an imported asset like one that does not exist', async () => {
    const cloud = (storage: string) =>
      t.call('POST', `/v2/project/${projectId}/cloud`, {
        body: { assets: [{ data: `https://cdn.example.com/${storage}.jpg`, storage }] },
      });
    const theirs = await cloud(theirStorage);
    const unknown = await cloud(UNKNOWN_ID);
    expect(theirs.statusCode).toBe(400);
    expect(theirs.json().errors).toEqual([
      { field: 'assets[0].storage', message: 'no such storage in your organization' },
    ]);
    expect(unknown.json().errors).toEqual(theirs.json().errors);
    expect((await cloud('not-an-id')).json().errors).toEqual(theirs.json().errors);
    const assets = await t.call('GET', `/v2/project/${projectId}/assets`);
    expect(assets.json().data.total).toBe(0);
    expect((await cloud(ourStorage)).statusCode).toBe(201);
  });

  it('refuses another organization’s export storage like one that does not exist', async () => {
    const update = (exportStorageId: string) =>
      t.call('POST', `/v2/project/${projectId}`, { body: { exportStorageId, exportStorageBucket: 'b' } });
    const theirs = await update(theirStorage);
    const unknown = await update(UNKNOWN_ID);
    expect(theirs.statusCode).toBe(400);
    expect(theirs.json().errors).toEqual([
      { field: 'exportStorageId', message: 'no such storage in your organization' },
    ]);
    expect(unknown.json()).toEqual(theirs.json());
    const kept = (await t.call('GET', `/v2/project/${projectId}`)).json().data.project;
    expect(kept.exportStorageId ?? '').toBe('');
    expect((await update(ourStorage)).statusCode).toBe(200);
    expect((await update('')).statusCode).toBe(200);
  });
});
