import fs from 'node:fs';
import path from 'node:path';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobWorker } from '../../src/jobs/worker.js';
import { WebhookPayload } from '../../src/schemas/webhook-payload.js';
import { REPO_ROOT } from '../helpers/annotary-child.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import {
  createProject,
  HOOK_ENV,
  hookWorkflow,
  importAssets,
  logsOf,
  queueDrained,
  stageStatus,
  startDeliveryWorker,
  taskOf,
  waitForStage,
} from '../helpers/webhooks.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Deliveries against real receivers on 127.0.0.1: signed, bearer and plain requests, POST and
 * PUT, what counts as failure (201, redirects, timeouts), retries with one delivery id.
 */
const ISO_LINE = /^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\]\[/;

/** Every key path of a JSON value (`task.tools[].bounding-box.x`...): its shape without values. */
function shape(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return [`${at}[]`, ...value.flatMap((v) => shape(v, `${at}[]`))];
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [`${at}.${k}`, ...shape(v, `${at}.${k}`)]);
  }
  return [];
}

/** The JSON example of docs/webhooks.md (its first json block). */
function documentedPayload(): unknown {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/webhooks.md'), 'utf8');
  const block = /```json\n([\s\S]*?)\n```/.exec(doc);
  if (!block?.[1]) throw new Error('docs/webhooks.md has no json block');
  return JSON.parse(block[1]);
}

describe.each(ENGINES)('webhook deliveries on %s', (engine) => {
  let t: TestApp;
  let worker: JobWorker;
  const receivers: Receiver[] = [];
  const receiver = async (opts: Parameters<typeof startReceiver>[0] = {}) => {
    const r = await startReceiver(opts);
    receivers.push(r);
    return r;
  };
  beforeAll(async () => {
    t = await makeTestApp(engine, { env: HOOK_ENV });
    worker = startDeliveryWorker(t);
  });
  afterAll(async () => {
    await worker.stop();
    for (const r of receivers) await r.close();
    await t.close();
  });

  it('signs the exact bytes with the secret and sends the whole payload, then moves the task on', async () => {
    const r = await receiver({ secret: 's3cr3t' });
    const ontology = { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000' }] };
    const id = await createProject(
      t,
      hookWorkflow({ url: `${r.url}/hook?k=1`, authType: 'secret', secret: 's3cr3t' }),
      ontology,
    );
    await t.call('POST', `/v2/batches/${id}`, { body: { batches: 'night' } });
    const batches = (await t.call('GET', `/v2/batches/${id}`)).json().data.batches as { _id: string; name: string }[];
    const [taskId] = await importAssets(t, id, [
      {
        data: 'https://cdn.example.com/a.jpg',
        externalId: 'ext-a',
        batches: ['night'],
        metadata: { width: 640, height: 480 },
      },
    ]);
    await waitForStage(t, taskId as string, 'Complete');

    expect(r.received).toHaveLength(1);
    const got = r.received[0]!;
    expect(got).toMatchObject({ method: 'POST', path: '/hook?k=1', signatureValid: true, attempt: 1 });
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-hub-signature']).toMatch(/^[0-9a-f]{40}$/);
    expect(got.headers.authorization).toBeUndefined();
    expect(got.deliveryId).toMatch(/^[0-9a-f]{24}$/);
    const body = got.body as Record<string, unknown>;
    expect(Value.Check(WebhookPayload, body), JSON.stringify([...Value.Errors(WebhookPayload, body)])).toBe(true);
    expect(body).toMatchObject({
      projectId: id,
      asset: 'https://cdn.example.com/a.jpg',
      externalId: 'ext-a',
      dataset: [],
      overlay: [],
      metadata: { width: 640, height: 480 },
      batches: [batches[0]?._id],
      batchNames: ['night'],
      categorySchema: { tools: [{ schemaId: 'car', title: 'Car' }] },
      task: { type: 'default', taskId, stage: 'Hook', stageId: 'Hook', stageName: 'Notify us', stageHistory: [] },
    });
    expect(Object.keys(body.task as object).sort()).toEqual(
      [
        'brushDataUrl',
        'classifications',
        'duration',
        'idleDuration',
        'medicalBrushDataUrl',
        'relations',
        'stage',
        'stageHistory',
        'stageId',
        'stageName',
        'taskId',
        'tools',
        'totalDuration',
        'totalIdleDuration',
        'type',
        'updatedAt',
        'updatedBy',
      ].sort(),
    );

    const history = (await t.call('GET', `/v2/task/${taskId}/history`)).json().data.taskHistory as Record<
      string,
      unknown
    >[];
    expect(history.map((h) => [h.stageId, h.trigger])).toEqual([['Hook', 'webhook']]);
    const { logs } = await logsOf(t, id);
    expect(logs).toHaveLength(1);
    expect(logs[0]?.line).toMatch(ISO_LINE);
    expect(logs[0]?.line).toMatch(/\]\[200\] ext-a$/);
    expect(logs[0]).toMatchObject({ status: 200, error: null, deliveryId: got.deliveryId, attempt: 1, taskId });
  });

  it('delivers exactly the payload shape docs/webhooks.md shows', async () => {
    const r = await receiver({ secret: 'change-me' });
    const id = await createProject(
      t,
      [
        { id: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Notify'] },
        {
          id: 'Notify',
          name: 'Notify',
          type: 'Webhook',
          next: ['Complete'],
          webhook: { url: r.url, authType: 'secret', secret: 'change-me' },
        },
        { id: 'Complete', type: 'Complete', next: [] },
      ],
      {
        tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#F44336', shortcutKey: '1' }],
        classifications: [
          {
            schemaId: 'weather',
            title: 'Weather',
            tool: 'radio',
            options: [
              { schemaId: 'sun', value: 'Sunny' },
              { schemaId: 'rain', value: 'Rainy' },
            ],
          },
        ],
      },
    );
    await t.call('POST', `/v2/batches/${id}`, { body: { batches: [{ name: 'january' }, { name: 'night' }] } });
    const [taskId] = await importAssets(t, id, [
      {
        data: 'https://cdn.example.com/street/0001.jpg',
        externalId: 'street-0001.jpg',
        batches: ['january', 'night'],
        metadata: { width: 1920, height: 1080 },
      },
    ]);
    const answer = {
      tools: [{ schemaId: 'car', 'bounding-box': { x: 412.5, y: 388, width: 201.9, height: 140.2 } }],
      classifications: [{ schemaId: 'weather', answer: 'sun' }],
    };
    const submit = await t.call('POST', `/v2/annotate/${taskId}?nextStage=true`, { body: { duration: 41250, answer } });
    expect(submit.statusCode, submit.body).toBe(200);
    await waitForStage(t, taskId as string, 'Complete');
    expect(r.received[0]?.signatureValid).toBe(true);
    expect(shape(r.received[0]?.body).sort()).toEqual(shape(documentedPayload()).sort());
  });

  it('sends PUT with the bearer token, and a plain request for no_auth', async () => {
    const r = await receiver();
    const bearer = await createProject(
      t,
      hookWorkflow({ url: r.url, method: 'PUT', authType: 'bearer_token', token: 'tok-123' }),
    );
    const plain = await createProject(t, hookWorkflow({ url: `${r.url}/plain` }));
    const [a] = await importAssets(t, bearer, [{ data: 'https://cdn.example.com/b.jpg' }]);
    const [b] = await importAssets(t, plain, [{ data: 'https://cdn.example.com/c.jpg' }]);
    await waitForStage(t, a as string, 'Complete');
    await waitForStage(t, b as string, 'Complete');

    const put = r.received.find((x) => x.path === '/')!;
    expect(put.method).toBe('PUT');
    expect(put.headers.authorization).toBe('Bearer tok-123');
    expect(put.headers['x-hub-signature']).toBeUndefined();
    expect((put.body as { task: { taskId: string } }).task.taskId).toBe(a);
    const post = r.received.find((x) => x.path === '/plain')!;
    expect(post.method).toBe('POST');
    expect(post.headers.authorization).toBeUndefined();
    expect(post.headers['x-hub-signature']).toBeUndefined();
    expect(post.headers['content-type']).toBe('application/json');
  });

  it('retries a receiver that fails twice: three attempts, one delivery id, then the task moves on', async () => {
    const r = await receiver({
      secret: 'k',
      respond: (_req, all) => ({ status: all.length <= 2 ? 503 : 200 }),
    });
    const id = await createProject(t, hookWorkflow({ url: r.url, authType: 'secret', secret: 'k', retryCount: 3 }));
    const [taskId] = await importAssets(t, id, [{ data: 'https://cdn.example.com/d.jpg', externalId: 'd' }]);
    await waitForStage(t, taskId as string, 'Complete');

    expect(r.received.map((x) => x.attempt)).toEqual([1, 2, 3]);
    expect(new Set(r.received.map((x) => x.deliveryId)).size).toBe(1);
    expect(r.received.every((x) => x.signatureValid)).toBe(true);
    const { logs } = await logsOf(t, id);
    // Newest first.
    expect(logs.map((l) => [l.attempt, l.status])).toEqual([
      [3, 200],
      [2, 503],
      [1, 503],
    ]);
    expect(logs[1]?.line).toMatch(/\]\[503\] d$/);
    expect((await stageStatus(t, id, 'Hook')).warnings).toEqual([]);
  });

  it('counts a 201 as a failure: after retryCount + 1 attempts the task stays, with a warning', async () => {
    const r = await receiver({ respond: () => ({ status: 201 }) });
    const id = await createProject(t, hookWorkflow({ url: r.url, retryCount: 1 }));
    const [taskId] = await importAssets(t, id, [{ data: 'https://cdn.example.com/e.jpg', externalId: 'e' }]);
    await waitFor(async () => (await stageStatus(t, id, 'Hook')).warnings.length > 0, 'the warning');

    expect(r.received.map((x) => x.attempt)).toEqual([1, 2]);
    expect((await taskOf(t, taskId as string)).stage).toBe('Hook');
    const status = await stageStatus(t, id, 'Hook');
    expect(status.taskCount).toBe(1);
    expect(status.warnings).toEqual([
      { kind: 'webhook', failedCount: 1, lastError: 'HTTP 201', lastFailedAt: expect.stringMatching(/Z$/) },
    ]);
    const listed = (await t.call('GET', `/v2/project/${id}/tasks?stage=Hook`)).json().data;
    expect(listed.tasks.map((x: { _id: string }) => x._id)).toEqual([taskId]);
    const { logs } = await logsOf(t, id);
    expect(logs.map((l) => l.line.replace(ISO_LINE, '['))).toEqual(['[201] e', '[201] e']);
  });

  it('gives up on a receiver slower than the timeout, and does not follow redirects', async () => {
    const slow = await receiver({ respond: () => ({ status: 200, delayMs: 2_000 }) });
    const moved = await receiver({ respond: () => ({ status: 302, headers: { location: `${slow.url}/elsewhere` } }) });
    const a = await createProject(t, hookWorkflow({ url: slow.url, timeout: 100, retryCount: 0 }));
    const b = await createProject(t, hookWorkflow({ url: moved.url, retryCount: 0 }));
    const [ta] = await importAssets(t, a, [{ data: 'https://cdn.example.com/f.jpg', externalId: 'f' }]);
    const [tb] = await importAssets(t, b, [{ data: 'https://cdn.example.com/g.jpg', externalId: 'g' }]);
    await waitFor(async () => (await stageStatus(t, a, 'Hook')).warnings.length > 0, 'the timeout warning');
    await waitFor(async () => (await stageStatus(t, b, 'Hook')).warnings.length > 0, 'the redirect warning');

    expect((await stageStatus(t, a, 'Hook')).warnings[0]).toMatchObject({ lastError: 'timeout after 100 ms' });
    expect((await logsOf(t, a)).logs.map((l) => l.line.replace(ISO_LINE, '['))).toEqual(['[timeout after 100 ms] f']);
    expect((await logsOf(t, b)).logs.map((l) => l.line.replace(ISO_LINE, '['))).toEqual(['[302] g']);
    expect(slow.received.filter((x) => x.path === '/elsewhere')).toEqual([]);
    expect((await taskOf(t, ta as string)).stage).toBe('Hook');
    expect((await taskOf(t, tb as string)).stage).toBe('Hook');
  });

  it('delivers each of many tasks once with two workers claiming in the transactions that end deliveries', async () => {
    const r = await receiver({ secret: 'many' });
    const id = await createProject(t, hookWorkflow({ url: `${r.url}/many`, authType: 'secret', secret: 'many' }));
    // A second worker on the same store: each claims the successors of the deliveries it ends.
    const second = startDeliveryWorker(t);
    try {
      const count = 120;
      const assets = Array.from({ length: count }, (_, i) => ({ data: `https://cdn.example.com/m${i}.jpg` }));
      const taskIds = await importAssets(t, id, assets);
      await waitFor(async () => (await queueDrained(t)) && r.received.length >= count, 'the deliveries to end');
      const tasks = await t.store.db
        .selectFrom('tasks')
        .select(['id', 'stage_id'])
        .where('project_id', '=', id)
        .execute();
      expect(tasks.filter((x) => x.stage_id === 'Complete')).toHaveLength(count);
      // Every delivery sent once, on its first attempt, signed: no job was run by two claims.
      expect(r.received).toHaveLength(count);
      expect(new Set(r.received.map((x) => x.deliveryId)).size).toBe(count);
      expect(r.received.every((x) => x.attempt === 1 && x.signatureValid)).toBe(true);
      const jobs = await t.store.db
        .selectFrom('jobs')
        .select(['status', 'attempts'])
        .where('kind', '=', 'webhook.deliver')
        .where('id', 'in', [...new Set(r.received.map((x) => x.deliveryId))])
        .execute();
      expect(jobs).toHaveLength(count);
      expect(jobs.every((j) => j.status === 'done' && j.attempts === 1)).toBe(true);
      // One history entry out of the Webhook stage and one log line per task.
      const history = await t.store.db
        .selectFrom('task_history')
        .select('task_id')
        .where('task_id', 'in', taskIds)
        .where('stage_id', '=', 'Hook')
        .execute();
      expect(history).toHaveLength(count);
      expect(new Set(history.map((h) => h.task_id)).size).toBe(count);
      expect((await logsOf(t, id)).total).toBe(count);
    } finally {
      await second.stop();
    }
  });
});
