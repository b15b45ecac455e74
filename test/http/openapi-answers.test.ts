import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { recordAnswers, type RecordedAnswer } from '../helpers/answer-recorder.js';
import { checkAnswers, checkExamples, docPath, type Doc } from '../helpers/document-check.js';
import { startS3rver } from '../helpers/emulators.js';
import { driveEveryOperation, pluginBehaviour, type Fixtures } from '../helpers/every-operation.js';
import { startPluginServer, type PluginServer } from '../helpers/plugin-server.js';
import { ENGINES } from '../helpers/stores.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { startDeliveryWorker } from '../helpers/webhooks.js';

/**
 * Every operation driven through the app with realistic data, every answer compared with the
 * served document (its status documented, its body valid against the documented schema), and
 * every answer serialised without loss: the JSON on the wire equals what the service gave.
 */
describe.each(ENGINES)('every answer matches the OpenAPI document on %s', (engine) => {
  let t: TestApp;
  let fx: Fixtures;
  let answers: RecordedAnswer[] = [];
  let doc: Doc;
  let stopWorker: () => Promise<void>;
  beforeAll(async () => {
    t = await makeTestApp(engine, {
      env: {
        ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true',
        ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true',
        ANNOTARY_DEFAULT_PLAN: 'enterprise',
      },
      beforeRoutes: (app) => {
        answers = recordAnswers(app);
      },
    });
    const apiUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const holder: { plugin?: PluginServer } = {};
    const plugin = await startPluginServer(
      apiUrl,
      t.ownerKey,
      pluginBehaviour(() => holder.plugin as PluginServer),
    );
    holder.plugin = plugin;
    fx = { s3: await startS3rver(), plugin, receiver: await startReceiver() };
    const worker = startDeliveryWorker(t);
    stopWorker = () => worker.stop();
    await driveEveryOperation(t, fx);
    doc = (await t.call('GET', '/v2/openapi.json', { key: null })).json();
    // Some sixty operations with a plugin, a webhook and a storage: minutes on a busy machine.
  }, 300_000);
  afterAll(async () => {
    await stopWorker?.();
    await fx?.plugin.close();
    await fx?.receiver.close();
    await fx?.s3.stop();
    await t?.close();
  });

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op })),
    );

  it('answers every operation of the document with its documented success status', () => {
    const answered = new Set(answers.map((a) => `${a.method.toLowerCase()} ${docPath(a.route)} ${a.status}`));
    const missing = operations()
      .filter(({ path, method, op }) => {
        const success = Object.keys(op.responses).find((s) => s.startsWith('2'));
        return !answered.has(`${method} ${path} ${success}`);
      })
      .map(({ path, method }) => `${method} ${path}`);
    expect(missing).toEqual([]);
    expect(operations().length).toBeGreaterThanOrEqual(59);
  });

  it('every answer validates against the documented schema of its status', () => {
    expect(answers.length).toBeGreaterThan(80);
    expect(checkAnswers(doc, answers)).toEqual([]);
  });

  it('serialisation drops and adds nothing: the wire JSON equals what the service answered', () => {
    const serialised = answers.filter((a) => a.given !== undefined && a.sent !== undefined);
    expect(serialised.length).toBeGreaterThan(80);
    for (const a of serialised) {
      expect(JSON.parse(a.sent as string), `${a.method} ${a.route} ${a.status}`).toEqual(a.given);
    }
  });

  it('names, describes and tags every operation; names every component', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = new Set((doc as unknown as { tags: { name: string }[] }).tags.map((tag) => tag.name));
    for (const { op } of operations()) {
      const o = op as { summary?: string; tags?: string[] };
      expect(o.summary, op.operationId).toBeTruthy();
      expect(o.tags?.length && o.tags.every((tag) => tags.has(tag)), op.operationId).toBe(true);
    }
    expect(Object.keys(doc.components.schemas).filter((name) => /^def-\d+$/.test(name))).toEqual([]);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Project', 'ProjectListItem', 'Task', 'Stage', 'CategorySchema', 'Tool']),
    );
    expect(checkExamples(doc)).toEqual([]);
  });
});
