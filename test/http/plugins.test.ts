import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJobRegistry } from '../../src/job-handlers.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

const SECRET = 'plugin-secret-do-not-leak';
const flow = (pluginId: string) => [
  { id: 'Start', type: 'Start', next: ['Model'] },
  { id: 'Model', type: 'Plugin', next: ['Done'], pluginId, pluginConfig: { threshold: 0.4 } },
  { id: 'Done', type: 'Complete' },
];

describe.each(ENGINES)('plugins of an organization on %s', (engine) => {
  let t: TestApp;
  let memberKey: string;
  let pluginId: string;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    memberKey = await t.addUser(`member-${engine}@example.com`, 'member');
  });
  afterAll(() => t.close());

  it('registers a plugin (owner/admin only), never answering or storing its secret in clear', async () => {
    const body = { name: ' Detector ', url: 'https://models.example.com/detect', secret: SECRET };
    const res = await t.call('POST', '/v2/plugins', { body });
    expect(res.statusCode).toBe(201);
    const plugin = res.json().data.plugin;
    expect(plugin).toMatchObject({ name: 'Detector', url: body.url, organization: t.orgId });
    expect(res.body).not.toContain(SECRET);
    pluginId = plugin._id;
    const row = await t.store.db.selectFrom('plugins').selectAll().where('id', '=', pluginId).executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(SECRET);
    expect((await t.call('POST', '/v2/plugins', { key: memberKey, body })).statusCode).toBe(403);
  });

  it('lists the plugins to any member: {plugins, total}', async () => {
    const res = await t.call('GET', '/v2/plugins?limit=5', { key: memberKey });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ total: 1, plugins: [{ _id: pluginId, name: 'Detector' }] });
    expect(res.body).not.toContain(SECRET);
    expect((await t.call('GET', '/v2/plugins?limit=101')).statusCode).toBe(400);
  });

  it('refuses bad registrations, naming the field', async () => {
    const bad = async (body: unknown) => {
      const res = await t.call('POST', '/v2/plugins', { body });
      expect(res.statusCode).toBe(400);
      return res.json().errors[0].field;
    };
    expect(await bad({ name: 'x', url: 'ftp://example.com/x', secret: 's' })).toBe('url');
    expect(await bad({ name: 'x', url: 'not a url', secret: 's' })).toBe('url');
    // Private destinations are refused unless ANNOTARY_WEBHOOK_ALLOW_PRIVATE=true.
    expect(await bad({ name: 'x', url: 'http://127.0.0.1:9/x', secret: 's' })).toBe('url');
    expect(await bad({ name: 'x', url: 'http://[::1]/x', secret: 's' })).toBe('url');
    expect(await bad({ name: 'x', url: 'https://example.com/x' })).toBe('secret');
    expect(await bad({ name: '   ', url: 'https://example.com/x', secret: 's' })).toBe('name');
  });

  it('a workflow naming a plugin the organization does not have answers 400 on stages[i].pluginId', async () => {
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Plugged' } })).json().data.project._id;
    const unknown = await t.call('POST', `/v2/project/${pid}`, { body: { stages: flow('ffffffffffffffffffffffff') } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toEqual([
      { field: 'stages[1].pluginId', message: expect.stringContaining('no plugin') },
    ]);
    const ok = await t.call('POST', `/v2/project/${pid}`, { body: { stages: flow(pluginId) } });
    expect(ok.statusCode).toBe(200);

    // In use by a workflow: the plugin cannot be deleted.
    expect((await t.call('DELETE', `/v2/plugins/${pluginId}`)).statusCode).toBe(409);
    await t.call('POST', `/v2/project/${pid}`, {
      body: {
        stages: [
          { id: 'Start', type: 'Start', next: ['Done'] },
          { id: 'Done', type: 'Complete' },
        ],
      },
    });
    expect((await t.call('DELETE', `/v2/plugins/${pluginId}`, { key: memberKey })).statusCode).toBe(403);
    const del = await t.call('DELETE', `/v2/plugins/${pluginId}`);
    expect(del.statusCode).toBe(200);
    expect(del.json().data.plugin).toMatchObject({ _id: pluginId, deleted: true });
    expect((await t.call('DELETE', `/v2/plugins/${pluginId}`)).statusCode).toBe(404);
    expect((await t.call('GET', '/v2/plugins')).json().data.total).toBe(0);
    // A deleted plugin is unknown to workflows too.
    const again = await t.call('POST', `/v2/project/${pid}`, { body: { stages: flow(pluginId) } });
    expect(again.json().errors[0].field).toBe('stages[1].pluginId');
  });

  it('session endpoints answer 404 for unknown sessions and 400 for bad bodies', async () => {
    const session = 'aaaaaaaaaaaaaaaaaaaaaaaa';
    expect((await t.call('POST', '/v2/pluginResponse', { body: { session, error: true } })).statusCode).toBe(404);
    expect((await t.call('POST', '/v2/pluginLog', { body: { session, message: 'hi' } })).statusCode).toBe(404);
    expect((await t.call('GET', `/v2/pluginLog?session=${session}`)).statusCode).toBe(404);
    const noSession = await t.call('POST', '/v2/pluginResponse', { body: { error: true } });
    expect(noSession.json().errors[0].field).toBe('session');
    const badLogs = await t.call('POST', '/v2/pluginLog', { body: { session, logs: 'not a list' } });
    expect(badLogs.json().errors[0].field).toBe('logs');
    expect((await t.call('GET', '/v2/pluginLog')).json().errors[0].field).toBe('session');
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'No plugins' } })).json().data.project._id;
    const rerun = await t.call('POST', `/v2/project/${pid}/rerun-plugin`, { body: { stageId: 'Start' } });
    expect(rerun.json().errors[0].field).toBe('stageId');
    const all = await t.call('POST', `/v2/project/${pid}/rerun-plugin`, { body: {} });
    expect(all.json().data).toEqual({ plugin: { stageIds: [], queued: 0 } });
  });

  it('the application job registry handles plugin calls', () => {
    const registry = buildJobRegistry(t.ctx);
    expect(registry.kinds()).toContain('plugin.call');
    expect(() => registry.assertComplete()).not.toThrow();
  });
});
