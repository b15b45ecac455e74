import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobPayloads } from '../../src/jobs/registry.js';
import type { JobWorker } from '../../src/jobs/worker.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import {
  expectOk,
  startPluginServer,
  startPluginWorker,
  type Behave,
  type PluginServer,
} from '../helpers/plugin-server.js';
import { ENGINES } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

const SECRET = 'plugin-secret-never-leaks';
const ONTOLOGY = { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box' }] };
const BOX = { schemaId: 'car', 'bounding-box': { x: 4, y: 5, width: 6, height: 7 } };
const TIMEOUT_MS = 400;

type Json = Record<string, unknown>;
interface StageStatus {
  id: string;
  taskCount: number;
  warnings: { kind: string; failedCount: number; lastError: string }[];
}

describe.each(ENGINES)('Plugin stages with a real plugin on 127.0.0.1 on %s', (engine) => {
  let t: TestApp;
  let plugin: PluginServer;
  let worker: JobWorker<Pick<JobPayloads, 'plugin.call'>>;
  let flakyFails = true;

  /** The plugin: answers every call 200 at once, then works and calls the API back. */
  const behave: Behave = (call, api) => {
    const { session, taskId } = call.body;
    if (call.path === '/hang') return 'hang';
    if (call.path === '/flaky' && flakyFails) return { status: 500 };
    const respond = async (body: unknown) => void (await expectOk(plugin, api, 'POST', '/v2/pluginResponse', body));
    if (call.path === '/error') {
      return { status: 200, after: () => respond({ session, error: true, message: 'model crashed' }) };
    }
    return {
      status: 200,
      after: async () => {
        const task = (await api('GET', `/v2/task/${taskId}`)).json.data as { task: { externalId: string } };
        if (task.task.externalId === 'by-annotate.jpg') {
          await expectOk(plugin, api, 'POST', `/v2/annotate/${taskId}?nextStage=true&isPlugin=true`, {
            answer: { tools: [BOX] },
          });
          return;
        }
        await expectOk(plugin, api, 'POST', '/v2/pluginLog', { session, logs: ['model loaded', { found: 1 }] });
        await respond({ session, response: { tools: [BOX] } });
      },
    };
  };

  beforeAll(async () => {
    // The plugin calls back with the owner's key too: the professional plan leaves room for it.
    t = await makeTestApp(engine, {
      env: { ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true', ANNOTARY_DEFAULT_PLAN: 'professional' },
    });
    const apiUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    plugin = await startPluginServer(apiUrl, t.ownerKey, behave);
    worker = startPluginWorker(t, TIMEOUT_MS);
  });
  afterAll(async () => {
    await worker.stop();
    await plugin.close();
    await t.close();
  });

  async function register(path: string, url = `${plugin.url}${path}`): Promise<string> {
    const res = await t.call('POST', '/v2/plugins', { body: { name: path, url, secret: SECRET } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.plugin._id;
  }
  async function project(pluginId: string): Promise<string> {
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Plugged' } })).json().data.project._id;
    const stages = [
      { id: 'Start', type: 'Start', next: ['Model'] },
      { id: 'Model', type: 'Plugin', next: ['Done'], pluginId, pluginConfig: { minScore: 0.4 } },
      { id: 'Done', type: 'Complete' },
    ];
    const res = await t.call('POST', `/v2/project/${pid}`, { body: { stages, categorySchema: ONTOLOGY } });
    expect(res.statusCode, res.body).toBe(200);
    return pid;
  }
  async function importAll(pid: string, names: string[]): Promise<string[]> {
    const assets = names.map((n) => ({ data: `https://cdn.example.com/${n}` }));
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, { body: { assets } });
    return res.json().data.assets.map((a: { taskId: string }) => a.taskId);
  }
  const task = async (id: string) => (await t.call('GET', `/v2/task/${id}`)).json().data.task as Json;
  const modelStage = async (pid: string): Promise<StageStatus> =>
    ((await t.call('GET', `/v2/project/${pid}/stages`)).json().data.stages as StageStatus[]).find(
      (s) => s.id === 'Model',
    ) as StageStatus;
  // Waits look at the store, not the API: polling must not eat the API key's rate limit.
  const stageOf = async (id: string) =>
    (await t.store.db.selectFrom('tasks').select('stage_id').where('id', '=', id).executeTakeFirstOrThrow()).stage_id;
  const waitDone = (id: string) =>
    waitFor(async () => (await stageOf(id)) === 'Done', `task ${id} to leave the plugin`, 15_000, 20);
  const waitFailed = (pid: string, what: string) =>
    waitFor(
      async () =>
        (await t.store.db
          .selectFrom('plugin_calls')
          .select('id')
          .where('project_id', '=', pid)
          .where('status', '=', 'failed')
          .executeTakeFirst()) !== undefined,
      what,
      15_000,
      20,
    );

  it('the plugin receives the task with its Secret and answers through /annotate and /pluginResponse', async () => {
    const pid = await project(await register('/detect'));
    const [viaAnnotate, viaResponse] = await importAll(pid, ['by-annotate.jpg', 'by-response.jpg']);
    await waitDone(viaAnnotate as string);
    await waitDone(viaResponse as string);

    const calls = plugin.calls.filter((c) => c.body.projectId === pid);
    expect(calls).toHaveLength(2);
    for (const c of calls) {
      expect(c.headers.secret).toBe(SECRET);
      expect(c.headers['content-type']).toBe('application/json');
      expect(c.body).toMatchObject({
        orgId: t.orgId,
        stage: 'Model',
        configJSON: '{"minScore":0.4}',
        categorySchema: ONTOLOGY,
      });
      expect(c.body.session).toMatch(/^[0-9a-f]{24}$/);
    }
    expect(calls.map((c) => c.body.taskId).sort()).toEqual([viaAnnotate, viaResponse].sort());
    for (const id of [viaAnnotate, viaResponse] as string[]) {
      const done = await task(id);
      expect(done).toMatchObject({ stage: 'Done', status: 'Completed', answer: { tools: [{ schemaId: 'car' }] } });
      const history = (await t.call('GET', `/v2/task/${id}/history`)).json().data.taskHistory;
      expect(history.map((h: Json) => `${h.stageId}:${h.trigger}`)).toEqual(['Model:plugin']);
    }

    const session = calls.find((c) => c.body.taskId === viaResponse)?.body.session as string;
    const logs = (await t.call('GET', `/v2/pluginLog?session=${session}&sort=createdAt`)).json().data;
    const lines = logs.logs.map((l: Json) => `${l.source}: ${l.message}`);
    expect(lines).toContain('plugin: model loaded');
    expect(lines).toContain('plugin: {"found":1}');
    expect(lines.some((l: string) => /^annotary: \[[^\]]+\]\[200\] by-response\.jpg$/.test(l))).toBe(true);
    const again = await t.call('POST', '/v2/pluginResponse', { body: { session, response: { tools: [] } } });
    expect(again.statusCode).toBe(409);
    expect(await modelStage(pid)).toMatchObject({ taskCount: 0, warnings: [] });

    // The secret is in no job payload, call record or log line.
    const payloads = await t.store.db.selectFrom('jobs').select('payload').execute();
    const logged = await t.store.db.selectFrom('plugin_logs').select('message').execute();
    expect(JSON.stringify([payloads, logged])).not.toContain(SECRET);
    expect(plugin.problems).toEqual([]);
  });

  it('a plugin answering 500 leaves the task in the stage with a warning; a re-run passes it on', async () => {
    flakyFails = true;
    const pid = await project(await register('/flaky'));
    const [id] = (await importAll(pid, ['flaky.jpg'])) as [string];
    await waitFailed(pid, 'the plugin warning');
    const stage = await modelStage(pid);
    expect(stage).toMatchObject({
      taskCount: 1,
      warnings: [{ kind: 'plugin', failedCount: 1, lastError: 'HTTP 500' }],
    });
    expect((await task(id)).stage).toBe('Model');
    const tried = plugin.calls.filter((c) => c.body.taskId === id);
    expect(tried).toHaveLength(3);
    expect(new Set(tried.map((c) => c.body.session)).size).toBe(1);

    flakyFails = false;
    const rerun = await t.call('POST', `/v2/project/${pid}/rerun-plugin`, { body: { stageId: 'Model' } });
    expect(rerun.json().data).toEqual({ plugin: { stageIds: ['Model'], queued: 1 } });
    expect((await modelStage(pid)).warnings).toEqual([]);
    await waitDone(id);
    const sessions = plugin.calls.filter((c) => c.body.taskId === id).map((c) => c.body.session);
    expect(new Set(sessions).size).toBe(2);
    expect(await modelStage(pid)).toMatchObject({ taskCount: 0, warnings: [] });
    expect(plugin.problems).toEqual([]);
  });

  it('a Plugin sub-stage of a Consensus stage works a copy like a labeler would', async () => {
    const model = await register('/consensus');
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Model and human' } })).json().data.project._id;
    const stages = [
      { id: 'Start', type: 'Start', next: ['C'] },
      { id: 'C', type: 'Consensus', next: ['Done', 'Done'], consensusConfig: { threshold: 1 } },
      { id: 'human', type: 'Label', next: ['C'], consensusId: 'C' },
      { id: 'model', type: 'Plugin', next: ['C'], consensusId: 'C', pluginId: model },
      { id: 'Done', type: 'Complete' },
    ];
    expect(
      (await t.call('POST', `/v2/project/${pid}`, { body: { stages, categorySchema: ONTOLOGY } })).statusCode,
    ).toBe(200);
    const [parent] = (await importAll(pid, ['pair.jpg'])) as [string];
    const copies = await t.store.db.selectFrom('tasks').selectAll().where('parent_task_id', '=', parent).execute();
    const human = copies.find((c) => c.stage_id === 'human');
    const byModel = copies.find((c) => c.stage_id === 'model');
    // The model's copy is answered by the plugin and rests in the container, done.
    await waitFor(
      async () => (await stageOf(byModel?.id as string)) === 'C',
      'the model copy to be answered',
      15_000,
      20,
    );
    expect(await stageOf(parent)).toBe('C');
    const res = await t.call('POST', `/v2/annotate/${human?.id}?nextStage=true`, {
      body: { answer: { tools: [BOX] } },
    });
    expect(res.statusCode).toBe(200);
    expect(await task(parent)).toMatchObject({ stage: 'Done', consensusScore: 1, answer: { tools: [BOX] } });
    expect(plugin.calls.filter((c) => c.body.taskId === byModel?.id)).toHaveLength(1);
    expect(plugin.problems).toEqual([]);
  });

  it('an error answer, a timeout and a refused connection each leave the task with a warning', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const cases = [
      { plugin: await register('/error'), error: 'the plugin reported an error: model crashed' },
      { plugin: await register('/hang'), error: `timeout after ${TIMEOUT_MS} ms` },
      { plugin: await register('/dead', `http://127.0.0.1:${deadPort}/x`), error: 'connection refused' },
    ];
    for (const c of cases) {
      const pid = await project(c.plugin);
      const [id] = (await importAll(pid, ['stuck.jpg'])) as [string];
      await waitFailed(pid, `the warning "${c.error}"`);
      expect(await modelStage(pid)).toMatchObject({
        taskCount: 1,
        warnings: [{ kind: 'plugin', failedCount: 1, lastError: c.error }],
      });
      expect((await task(id)).stage).toBe('Model');
      const logs = (await t.call('GET', `/v2/pluginLog?project=${pid}&stageId=Model`)).json().data;
      expect(logs.total).toBeGreaterThan(0);
    }
    expect(plugin.problems).toEqual([]);
  });
});
