import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { H, ONTOLOGY, W } from '../helpers/dataset-fixture.js';
import { START_STAGES } from '../helpers/label-files.js';
import { type PluginServer, startPluginServer, startPluginWorker } from '../helpers/plugin-server.js';
import { ENGINES } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Data brought in and a plugin's answers are changes too: an asset import, a label import (JSON
 * pre-labels or a label file) and a plugin's POST /pluginResponse each append exactly one audit
 * record, in the change's transaction; a refused one appends none. No secret reaches a record.
 */

interface AuditRecordView {
  _id: string;
  userId: string | null;
  actor: string | null;
  operation: string;
  target: { type: string; id: string };
  projectId: string | null;
  fields: string[];
}

const SECRET = 'plugin-secret-of-the-audit-imports';

describe.each(ENGINES)('audit records of imports and plugin answers on %s', (engine) => {
  let t: TestApp;
  let seen = new Set<string>();
  let pid: string;
  let plugin: PluginServer | undefined;
  let worker: ReturnType<typeof startPluginWorker> | undefined;

  beforeAll(async () => {
    t = await makeTestApp(engine, {
      env: { ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true', ANNOTARY_DEFAULT_PLAN: 'enterprise' },
    });
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Imported' } })).json().data.project._id as string;
    const setup = await t.call('POST', `/v2/project/${pid}`, {
      body: { categorySchema: ONTOLOGY, stages: START_STAGES },
    });
    expect(setup.statusCode, setup.body).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await plugin?.close();
    await t?.close();
  });

  /** The records written since the last call, oldest first; no raw row holds a secret. */
  async function newRecords(): Promise<AuditRecordView[]> {
    const res = await t.call('GET', `/v2/organization/${t.orgId}/audit?limit=1000`);
    expect(res.statusCode, res.body).toBe(200);
    const all = (res.json().data.records as AuditRecordView[]).reverse();
    const fresh = all.filter((r) => !seen.has(r._id));
    seen = new Set(all.map((r) => r._id));
    const rows = JSON.stringify(await t.store.db.selectFrom('audit_log').selectAll().execute());
    expect(rows).not.toContain(SECRET);
    expect(rows).not.toContain(t.ownerKey);
    return fresh;
  }

  it('records an asset import once, naming its batches and priority; a refused one writes none', async () => {
    await newRecords();
    const assets = ['street.jpg', 'road.jpg'].map((name) => ({
      data: `https://cdn.example.com/${name}`,
      externalId: name,
      metadata: { width: W, height: H },
    }));
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, { body: { assets } });
    expect(res.statusCode, res.body).toBe(201);
    expect(await newRecords()).toEqual([
      expect.objectContaining({
        operation: 'assets.import',
        target: { type: 'project', id: pid },
        projectId: pid,
        fields: ['assets'],
        actor: expect.any(String),
      }),
    ]);
    // The same external id again: refused, nothing imported, nothing recorded.
    const again = await t.call('POST', `/v2/project/${pid}/cloud`, { body: { assets: [assets[0]] } });
    expect(again.statusCode).toBe(409);
    expect(await newRecords()).toEqual([]);

    const batch = await t.call('POST', `/v2/batches/${pid}`, { body: { batches: 'Morning' } });
    expect(batch.statusCode, batch.body).toBeLessThan(300);
    // Batches for every asset of the request (names are taken as ids are) and a priority.
    const more = await t.call('POST', `/v2/project/${pid}/cloud?batches=${encodeURIComponent('["Morning"]')}`, {
      body: { assets: [{ data: 'https://cdn.example.com/field.jpg', externalId: 'field.jpg' }], priority: 5 },
    });
    expect(more.statusCode, more.body).toBe(201);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'assets.import', fields: ['assets', 'batches', 'priority'] }),
    ]);
  });

  it('records a JSON label import once; one that pre-labels nothing or is refused writes none', async () => {
    await newRecords();
    const box = { schemaId: 'car', 'bounding-box': { x: 1, y: 1, width: 10, height: 10 } };
    const res = await t.call('POST', '/v2/import/labels', {
      body: { project: pid, jsonContent: [{ externalId: 'street.jpg', objects: [box] }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.imported).toBe(1);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'labels.import', target: { type: 'project', id: pid }, fields: ['answer'] }),
    ]);
    const none = await t.call('POST', '/v2/import/labels', {
      body: { project: pid, jsonContent: [{ externalId: 'missing.jpg', objects: [box] }] },
    });
    expect(none.statusCode, none.body).toBe(200);
    expect(none.json().data.imported).toBe(0);
    const bad = await t.call('POST', '/v2/import/labels', {
      body: { project: pid, jsonContent: [{ externalId: 'street.jpg', objects: [{ schemaId: 'nothing' }] }] },
    });
    expect(bad.statusCode).toBe(400);
    expect(await newRecords()).toEqual([]);
  });

  it('records a label file import once, with its format; a file matching nothing writes none', async () => {
    await newRecords();
    const coco = (file: string) =>
      JSON.stringify({
        images: [{ id: 1, file_name: file, width: W, height: H }],
        categories: [{ id: 1, name: 'Car' }],
        annotations: [{ id: 1, image_id: 1, category_id: 1, bbox: [1, 1, 8, 8], area: 64, iscrowd: 0 }],
      });
    const send = (body: string) =>
      t.app.inject({
        method: 'POST',
        url: `/v2/project/${pid}/import/labels?format=coco`,
        headers: { apikey: t.ownerKey, 'content-type': 'application/json' },
        payload: body,
      });
    const res = await send(coco('road.jpg'));
    expect(res.statusCode, res.body).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({
        operation: 'labels.import',
        target: { type: 'project', id: pid },
        fields: ['answer', 'format'],
      }),
    ]);
    const nothing = await send(coco('nowhere.jpg'));
    expect(nothing.statusCode).toBe(400);
    expect(await newRecords()).toEqual([]);
  });

  it("records a plugin's answer once, its reported error once, and its deletion; refused ones write none", async () => {
    plugin = await startPluginServer('http://127.0.0.1:9', t.ownerKey, () => ({ status: 200 }));
    const made = await t.call('POST', '/v2/plugins', { body: { name: 'Detector', url: plugin.url, secret: SECRET } });
    expect(made.statusCode, made.body).toBe(201);
    const pluginId = made.json().data.plugin._id as string;
    const flow = await t.call('POST', '/v2/project', { body: { name: 'Plugged' } });
    const plugged = flow.json().data.project._id as string;
    const stages = [
      { id: 'Start', type: 'Start', next: ['Model'] },
      { id: 'Model', type: 'Plugin', next: ['Done'], pluginId },
      { id: 'Done', type: 'Complete' },
    ];
    expect((await t.call('POST', `/v2/project/${plugged}`, { body: { stages } })).statusCode).toBe(200);
    worker = startPluginWorker(t, 2000);
    const imported = await t.call('POST', `/v2/project/${plugged}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/a.jpg' }, { data: 'https://cdn.example.com/b.jpg' }] },
    });
    expect(imported.statusCode, imported.body).toBe(201);
    await waitFor(() => (plugin?.calls.length ?? 0) >= 2, 'the plugin to be called twice');
    await newRecords();
    const [first, second] = plugin.calls.map((c) => c.body);
    expect(first?.session).not.toBe(second?.session);

    const answered = await t.call('POST', '/v2/pluginResponse', {
      body: { session: first?.session, response: { tools: [], classifications: [] }, duration: 3 },
    });
    expect(answered.statusCode, answered.body).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({
        operation: 'plugin.response',
        target: { type: 'task', id: first?.taskId },
        projectId: plugged,
        fields: ['answer', 'duration'],
      }),
    ]);
    const twice = await t.call('POST', '/v2/pluginResponse', {
      body: { session: first?.session, response: { tools: [], classifications: [] } },
    });
    expect(twice.statusCode).toBe(409);
    expect(await newRecords()).toEqual([]);

    const failed = await t.call('POST', '/v2/pluginResponse', {
      body: { session: second?.session, error: true, message: 'model not loaded' },
    });
    expect(failed.statusCode, failed.body).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({
        operation: 'plugin.response',
        target: { type: 'task', id: second?.taskId },
        fields: ['error'],
      }),
    ]);

    // A plugin a workflow still names cannot be deleted: refused, nothing recorded; an unused one: one record.
    expect((await t.call('DELETE', `/v2/plugins/${pluginId}`)).statusCode).toBe(409);
    expect(await newRecords()).toEqual([]);
    const spare = await t.call('POST', '/v2/plugins', { body: { name: 'Spare', url: plugin.url, secret: SECRET } });
    const spareId = spare.json().data.plugin._id as string;
    expect((await t.call('DELETE', `/v2/plugins/${spareId}`)).statusCode).toBe(200);
    expect(await newRecords()).toEqual([
      expect.objectContaining({ operation: 'plugin.create', fields: ['name', 'secret', 'url'] }),
      expect.objectContaining({ operation: 'plugin.delete', target: { type: 'plugin', id: spareId } }),
    ]);
  });
});
