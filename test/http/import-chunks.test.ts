import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { importedRows } from '../helpers/imports.js';
import { ENGINES } from '../helpers/stores.js';

/**
 * POST /project/{id}/cloud writes large imports a chunk at a time inside one transaction
 * (asset.service.ts importAssets): a request refused late, after earlier chunks were written,
 * must still write nothing, and answer what checking everything first would answer.
 */
describe.each(ENGINES)('imports written in chunks, all or nothing, on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  const many = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => ({
      data: `https://cdn.example.com/${tag}/${i}.jpg`,
      externalId: `${tag}-${i}`,
    }));
  const counts = () => importedRows(t);

  beforeAll(async () => {
    t = await makeTestApp(engine);
    await t.store.db.updateTable('organizations').set({ plan: 'enterprise', rate_limit: 1_000_000 }).execute();
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Chunks' } })).json().data.project._id;
    const first = await t.call('POST', `/v2/project/${projectId}/cloud`, { body: { assets: many(3, 'seed') } });
    expect(first.statusCode).toBe(201);
  });
  afterAll(() => t.close());

  it('an external id repeated late in the request: 409 naming it, nothing written', async () => {
    const before = await counts();
    const assets = many(9_000, 'dup');
    assets[8_500] = { ...assets[8_500]!, externalId: 'dup-10' };
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, { body: { assets } });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].field).toBe('assets[8500].externalId');
    expect(await counts()).toEqual(before);
  });

  it('an external id already in the project, in a late chunk: 409, nothing written', async () => {
    const before = await counts();
    const assets = many(7_000, 'clash');
    assets[6_999] = { data: 'https://cdn.example.com/x.jpg', externalId: 'seed-1' };
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, { body: { assets } });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].field).toBe('assets[6999].externalId');
    expect(await counts()).toEqual(before);
  });

  it('field errors win over an earlier duplicate, as when everything was checked first', async () => {
    const before = await counts();
    const assets = many(6_000, 'mixed');
    assets[10] = { ...assets[10]!, externalId: 'mixed-3' };
    assets[5_500] = { data: 'ftp://nope/x.jpg', externalId: 'bad' };
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, { body: { assets } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['assets[5500].data']);
    expect(await counts()).toEqual(before);
  });

  it('a good large import answers every asset with its task, in order', async () => {
    const before = await counts();
    const assets = many(5_001, 'good');
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, { body: { assets } });
    expect(res.statusCode).toBe(201);
    const data = res.json().data as { assetsCreated: number; assets: { externalId: string; taskId: string }[] };
    expect(data.assetsCreated).toBe(5_001);
    expect(data.assets.map((a) => a.externalId)).toEqual(assets.map((a) => a.externalId));
    expect(new Set(data.assets.map((a) => a.taskId)).size).toBe(5_001);
    const after = await counts();
    expect(after.assets - before.assets).toBe(5_001);
    expect(after.tasks - before.tasks).toBe(5_001);
    const project = (await t.call('GET', `/v2/project/${projectId}`)).json().data.project;
    expect(project.assetCount).toBe(5_004);
  });
});
