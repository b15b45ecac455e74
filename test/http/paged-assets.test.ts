import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobWorker } from '../../src/jobs/worker.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { download, listening, unzip } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { HOOK_ENV, startDeliveryWorker } from '../helpers/webhooks.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Assets made of several images (`dataset: [url, ...]` on import): the pages are kept in order,
 * answered by the asset, the task, the export and the webhook payload, and counted as the
 * asset's `metadata.pageTotal`, which bounds the `page` of every answer entry.
 */

const PAGES = [
  'https://cdn.example.com/book/p1.png',
  'https://cdn.example.com/book/p2.png',
  'https://cdn.example.com/book/p3.png',
];

describe.each(ENGINES)('assets of several images on %s', (engine) => {
  let t: TestApp;
  let worker: JobWorker;
  let receiver: Receiver;
  let pid: string;
  let taskId: string;
  let assetId: string;

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: HOOK_ENV });
    worker = startDeliveryWorker(t);
    receiver = await startReceiver();
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Scanned books' } })).json().data.project._id;
    const stages = [
      { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
      { id: 'Label', type: 'Label', name: 'Label', next: ['Hook'] },
      { id: 'Hook', type: 'Webhook', name: 'Tell us', next: ['Complete'], webhook: { url: `${receiver.url}/hook` } },
      { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
    ];
    const categorySchema = { tools: [{ schemaId: 'word', title: 'Word', tool: 'bounding-box' }] };
    const res = await t.call('POST', `/v2/project/${pid}`, { body: { stages, categorySchema } });
    expect(res.statusCode, res.body).toBe(200);
    const imported = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: PAGES[0], dataset: PAGES, externalId: 'book', metadata: { author: 'Ann' } }] },
    });
    expect(imported.statusCode, imported.body).toBe(201);
    ({ taskId, _id: assetId } = imported.json().data.assets[0]);
  });
  afterAll(async () => {
    await worker.stop();
    await receiver.close();
    await t.close();
  });

  it('keeps the pages in order and counts them as metadata.pageTotal', async () => {
    const listed = (await t.call('GET', `/v2/project/${pid}/assets`)).json().data.assets;
    expect(listed).toHaveLength(1);
    expect(listed[0]._id).toBe(assetId);
    expect(listed[0].dataset).toEqual(PAGES);
    expect(listed[0].metadata).toEqual({ author: 'Ann', pageTotal: 3 });
    const task = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task;
    expect(task.asset.dataset).toEqual(PAGES);
    expect(task.asset.data).toBe(PAGES[0]);
  });

  it('leaves dataset out for an asset of one file', async () => {
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/single.png', externalId: 'single' }] },
    });
    const single = res.json().data.assets[0];
    const task = (await t.call('GET', `/v2/task/${single.taskId}`)).json().data.task;
    expect(task.asset).not.toHaveProperty('dataset');
    const listed = (await t.call('GET', `/v2/project/${pid}/assets`)).json().data.assets;
    expect(listed.find((a: { _id: string }) => a._id === single._id)).not.toHaveProperty('dataset');
  });

  it('refuses pages that are not http(s) URLs and a pageTotal that disagrees, naming the field, writing nothing', async () => {
    const before = (await t.call('GET', `/v2/project/${pid}/assets`)).json().data.assets.length;
    const bad = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: [
          { data: 'https://cdn.example.com/ok.png', externalId: 'ok' },
          { data: PAGES[0], dataset: [PAGES[0], 'ftp://cdn.example.com/p2.png'], externalId: 'ftp' },
          { data: PAGES[0], dataset: PAGES, externalId: 'counted', metadata: { pageTotal: 5 } },
        ],
      },
    });
    expect(bad.statusCode, bad.body).toBe(400);
    const fields = (bad.json().errors as { field: string }[]).map((e) => e.field);
    expect(fields).toEqual(['assets[1].dataset[1]', 'assets[2].metadata.pageTotal']);
    const empty = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: PAGES[0], dataset: [], externalId: 'empty' }] },
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('dataset');
    expect((await t.call('GET', `/v2/project/${pid}/assets`)).json().data.assets).toHaveLength(before);
  });

  it('takes objects on each page and refuses a page past the last', async () => {
    const box = (page: number) => ({
      schemaId: 'word',
      objectId: `w${page}`,
      page,
      'bounding-box': { x: 10 * page, y: 5, width: 30, height: 12 },
    });
    const past = await t.call('POST', `/v2/annotate/${taskId}`, {
      body: { answer: { tools: [box(0), box(3)], classifications: [], relations: [] } },
    });
    expect(past.statusCode, past.body).toBe(400);
    expect(past.body).toContain('tools[1].page');
    const ok = await t.call('POST', `/v2/annotate/${taskId}?nextStage=true`, {
      body: { answer: { tools: [box(0), box(2)], classifications: [], relations: [] } },
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('sends the pages in the webhook payload and the export', async () => {
    const ofAsset = () =>
      receiver.received.find((r) => (r.body as { assetId?: string } | undefined)?.assetId === assetId);
    await waitFor(async () => ofAsset() !== undefined, 'the webhook delivery');
    const delivered = ofAsset();
    const payload = delivered?.body as {
      dataset: string[];
      metadata: Record<string, unknown>;
      task: { tools: { page: number }[] };
    };
    expect(payload.dataset).toEqual(PAGES);
    expect(payload.metadata.pageTotal).toBe(3);
    expect(payload.task.tools.map((o) => o.page)).toEqual([0, 2]);

    const res = await t.call('GET', `/v2/exportV3?project=${pid}&format=json`);
    expect(res.statusCode, res.body).toBe(200);
    const got = await download(res.json().data.exportPath as string, await listening(t.app));
    const [entry] = await unzip(got.body);
    const items = JSON.parse(entry?.text ?? '[]') as { assetId: string; dataset: unknown }[];
    expect(items.find((i) => i.assetId === assetId)?.dataset).toEqual(PAGES);
    expect(items.filter((i) => i.assetId !== assetId).every((i) => Array.isArray(i.dataset) && !i.dataset.length)).toBe(
      true,
    );
  });
});
