import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AssetServer, serveAssets, streetPng } from '../browser/helpers/editor-assets.js';
import { type AssistPlugin, startAssistPlugin } from '../helpers/assist-plugin.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { addRoleUsers, type RoleUsers } from '../helpers/roles.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * POST /task/{taskId}/assist: the labeler's points go with the image link to the organization's
 * Assist plugin (a region-growing one of the test's own on 127.0.0.1), signed with its secret;
 * its mask comes back checked. Bad input is refused naming the field, a plugin that fails or
 * does not answer in time is a 502 that says so, and only those who may annotate may ask.
 */

const W = 400;
const H = 300;
/** The dark red block of the picture: x 100..300, y 80..200. */
const BLOCK = 200 * 120;
const SECRET = 'assist-secret-1';

describe.each(ENGINES)('Assist on %s', (engine) => {
  let t: TestApp;
  let assets: AssetServer;
  let plugin: AssistPlugin;
  let projectId: string;
  let taskId: string;
  let pluginId: string;
  let stagePluginId: string;
  let users: RoleUsers;

  const ask = (body: unknown, key?: string | null) => t.call('POST', `/v2/task/${taskId}/assist`, { body, key });

  beforeAll(async () => {
    assets = await serveAssets({ '/street.png': { type: 'image/png', body: streetPng(W, H) } });
    plugin = await startAssistPlugin(SECRET);
    t = await makeTestApp(engine, {
      env: { ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true', ANNOTARY_ASSIST_TIMEOUT_MS: '1500' },
    });
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Assist' } })).json().data.project._id;
    const schema = await t.call('POST', `/v2/project/${projectId}`, {
      body: {
        categorySchema: {
          tools: [
            { schemaId: 'car', title: 'Car', tool: 'segmentation', color: '#00a000' },
            { schemaId: 'box', title: 'Box', tool: 'bounding-box', color: '#0000ff' },
          ],
        },
      },
    });
    expect(schema.statusCode, schema.body).toBe(200);
    const imported = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: { assets: [{ data: `${assets.url}/street.png`, metadata: { width: W, height: H } }] },
    });
    expect(imported.statusCode, imported.body).toBe(201);
    taskId = imported.json().data.assets[0].taskId;
    const made = await t.call('POST', '/v2/plugins', {
      body: { name: 'Grower', url: plugin.url, secret: SECRET, assistUrl: plugin.url },
    });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json().data.plugin).toMatchObject({ assistUrl: plugin.url });
    expect(JSON.stringify(made.json())).not.toContain(SECRET);
    pluginId = made.json().data.plugin._id;
    const stageOnly = await t.call('POST', '/v2/plugins', { body: { name: 'Stage', url: plugin.url, secret: 'x' } });
    stagePluginId = stageOnly.json().data.plugin._id;
    expect(stageOnly.json().data.plugin.assistUrl).toBeUndefined();
    users = await addRoleUsers(t, projectId, engine);
  });
  afterAll(async () => {
    await t?.close();
    await plugin?.close();
    await assets?.close();
  });

  it('lists the plugin with its assistUrl, and refuses an assistUrl that is not an http(s) URL', async () => {
    const list = (await t.call('GET', '/v2/plugins?limit=100')).json().data.plugins as { _id: string }[];
    expect(list.find((p) => p._id === pluginId)).toMatchObject({ assistUrl: plugin.url });
    const bad = await t.call('POST', '/v2/plugins', {
      body: { name: 'Bad', url: plugin.url, secret: 's', assistUrl: 'ftp://models.example.com/assist' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([{ field: 'assistUrl', message: expect.stringMatching(/http/) }]);
  });

  it("answers the plugin's mask for a click inside the block, signed with the plugin's secret", async () => {
    plugin.mode = 'mask';
    const res = await ask({ pluginId, schemaId: 'car', positive: [[200, 140]], negative: [[50, 250]] });
    expect(res.statusCode, res.body).toBe(200);
    const call = plugin.calls.at(-1)!;
    expect(call.headers.secret).toBe(SECRET);
    expect(call.body).toMatchObject({
      taskId,
      projectId,
      schemaId: 'car',
      tool: 'segmentation',
      image: { url: `${assets.url}/street.png`, width: W, height: H },
      positive: [[200, 140]],
      negative: [[50, 250]],
      box: null,
    });
    // No key of ours goes to the plugin.
    expect(JSON.stringify(call)).not.toContain(t.ownerKey);
    const mask = res.json().data.assist.mask as string;
    expect(mask).toMatch(/^data:image\/png;base64,/);
    const png = PNG.sync.read(Buffer.from(mask.split(',')[1]!, 'base64'));
    expect([png.width, png.height]).toEqual([W, H]);
    let inside = 0;
    for (let i = 0; i < png.data.length; i += 4) if (png.data[i]! > 0) inside++;
    expect(inside).toBe(BLOCK);
  });

  it('passes a box and answers zones when the plugin answers zones', async () => {
    plugin.mode = 'zones';
    const res = await ask({ pluginId, positive: [[150, 100]], box: [100, 80, 300, 200] });
    expect(res.statusCode, res.body).toBe(200);
    expect(plugin.calls.at(-1)!.body.box).toEqual([100, 80, 300, 200]);
    expect(res.json().data.assist.zones).toEqual([
      {
        region: [
          [140, 90],
          [160, 90],
          [160, 110],
          [140, 110],
        ],
        holes: [],
      },
    ]);
  });

  it('refuses bad input, naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ pluginId }, 'positive'],
      [{ pluginId, positive: [[W + 5, 10]] }, 'positive[0]'],
      [{ pluginId, positive: [[10, 10]], negative: [[-1, 10]] }, 'negative[0]'],
      [{ pluginId, positive: [[10, 10]], box: [50, 50, 40, 60] }, 'box'],
      [{ pluginId: '65f0c0ffee0000000000abcd', positive: [[10, 10]] }, 'pluginId'],
      [{ pluginId: stagePluginId, positive: [[10, 10]] }, 'pluginId'],
      [{ pluginId, schemaId: 'box', positive: [[10, 10]] }, 'schemaId'],
      [{ pluginId, positive: [[10]] }, 'positive[0]'],
      [{ positive: [[10, 10]] }, 'pluginId'],
    ];
    const before = plugin.calls.length;
    for (const [body, field] of cases) {
      const res = await ask(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      const fields = (res.json().errors as { field: string }[]).map((e) => e.field);
      expect(
        fields.some((f) => f.includes(field)),
        `${JSON.stringify(body)}: ${res.body}`,
      ).toBe(true);
    }
    expect(plugin.calls.length).toBe(before);
  });

  it('answers a plugin that fails, answers no PNG or a mask of another size, or does not answer in time, in words', async () => {
    const cases: [typeof plugin.mode, RegExp][] = [
      ['error', /the assist plugin answered HTTP 500/],
      ['not-png', /mask that is not a PNG/],
      ['small-mask', /399x300 mask; the image is 400x300/],
      ['hang', /did not answer within 1\.5 s/],
    ];
    for (const [mode, message] of cases) {
      plugin.mode = mode;
      const res = await ask({ pluginId, positive: [[200, 140]] });
      expect(res.statusCode, mode).toBe(502);
      expect(res.json()).toEqual({ status: 'error', message: expect.stringMatching(message) });
      expect(res.body).not.toContain(plugin.url);
    }
    plugin.mode = 'mask';
  });

  it('lets only those who may annotate the task ask', async () => {
    // The Labeler is not the task's assignee; the outsider cannot see the project.
    expect((await ask({ pluginId, positive: [[200, 140]] }, users.key.Labeler)).statusCode).toBe(403);
    expect((await ask({ pluginId, positive: [[200, 140]] }, users.key.outsider)).statusCode).toBe(404);
    expect((await ask({ pluginId, positive: [[200, 140]] }, null)).statusCode).toBe(401);
    const assigned = await t.call('POST', '/v2/task/assign', {
      body: { project: projectId, tasks: [taskId], stage: 'Label', user: users.email.Labeler },
    });
    expect(assigned.statusCode, assigned.body).toBe(200);
    expect((await ask({ pluginId, positive: [[200, 140]] }, users.key.Labeler)).statusCode).toBe(200);
  });
});
