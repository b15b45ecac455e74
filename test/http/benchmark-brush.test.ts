import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { type PaintedRect, rectLayer, uploadBrushLayer } from '../helpers/brush-upload.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Benchmarks with brush layers: the reference keeps the layer the task had when it was marked
 * (even after the task's own layer is removed), the labeler handed the benchmark never sees it,
 * and a submission's layer is scored per brush class by the IoU of its pixels against the
 * reference's. Hand-made 40 x 30 layers with known IoU per class.
 */

const W = 40;
const H = 30;
const RED = [255, 0, 0, 255];
const BLUE = [0, 0, 255, 255];

const ONTOLOGY = {
  tools: [
    { schemaId: 'road', title: 'Road', tool: 'brush', color: '#ff0000' },
    { schemaId: 'sky', title: 'Sky', tool: 'brush', color: '#0000ff' },
    { schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#00ff00' },
  ],
};
const STAGES = [
  { id: 'Start', type: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', next: ['Done'] },
  { id: 'Done', type: 'Complete' },
];

const layer = (rects: PaintedRect[]) => rectLayer(W, H, rects);

// Reference: road 10 x 10 at the left, sky 10 x 10 at x 20.
const REFERENCE = layer([
  [RED, 0, 0, 10, 10],
  [BLUE, 20, 0, 30, 10],
]);
// Road moved right by 5 (50 shared of 150: IoU 1/3), sky only its top half (50 of 100: IoU 1/2).
const SHIFTED = layer([
  [RED, 5, 0, 15, 10],
  [BLUE, 20, 0, 30, 5],
]);
const CAR = { schemaId: 'car', objectId: 'c', 'bounding-box': { x: 0, y: 20, width: 10, height: 5 } };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe.each(ENGINES)('brush layers of benchmarks on %s', (engine) => {
  let t: TestApp;
  let pid: string;
  let benchmark: string;
  const people: Record<string, { email: string; key: string }> = {};

  const submissions = async (who: string) =>
    (await t.call('GET', `/v2/project/${pid}/benchmarkSubmissions?labeler=${people[who]?.email}`)).json().data
      .submissions as Json[];
  const handOut = async (who: string) => {
    const next = await t.call('GET', `/v2/project/${pid}/next?stageId=Label`, { key: people[who]?.key ?? null });
    expect(next.statusCode, next.body).toBe(200);
    return next.json().data.task as Json;
  };

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Brush benchmarks' } })).json().data.project._id;
    const set = await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY, stages: STAGES } });
    expect(set.statusCode, set.body).toBe(200);
    const imported = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: ['bench', 'other'].map((n) => ({
          data: `https://cdn.example.com/${n}.jpg`,
          metadata: { width: W, height: H },
        })),
      },
    });
    benchmark = imported.json().data.assets[0].taskId as string;
    // The reference: the task's answer (one car) and its layer, as the Manager saved them.
    const saved = await t.call('POST', `/v2/annotate/${benchmark}`, {
      body: { answer: { tools: [CAR] }, brushDataUrl: await uploadBrushLayer(t, benchmark, REFERENCE) },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const marked = await t.call('POST', `/v2/project/${pid}/benchmarks`, { body: { tasks: [benchmark] } });
    expect(marked.statusCode, marked.body).toBe(200);
    // The task's own layer goes; the reference keeps the one it was marked with.
    const cleared = await t.call('POST', `/v2/annotate/${benchmark}`, { body: { brushDataUrl: '' } });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().data.task.brushDataUrl).toBeNull();
    const on = await t.call('POST', `/v2/project/${pid}`, { body: { benchmarkEnabled: true, benchmarkRatio: 1 } });
    expect(on.statusCode, on.body).toBe(200);
    for (const who of ['ann', 'bob', 'cat']) {
      const email = `${who}-brush-${engine}@example.com`;
      people[who] = { email, key: await t.addUser(email, 'member') };
      await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [email], role: 'Labeler' } });
    }
  });
  afterAll(() => t.close());

  it('scores each brush class by IoU against the reference layer, beside the objects', async () => {
    const task = await handOut('ann');
    expect(task._id).toBe(benchmark);
    expect(task.brushDataUrl).toBeNull();
    // Handed the benchmark, the labeler uploads a layer for it though it is assigned to nobody.
    const mine = await uploadBrushLayer(t, benchmark, SHIFTED, people.ann?.key);
    const bad = await t.call('POST', `/v2/annotate/${benchmark}?nextStage=true`, {
      body: { answer: { tools: [CAR] }, brushDataUrl: 'https://elsewhere.example.com/layer.png' },
      key: people.ann?.key ?? null,
    });
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json().errors[0].field).toBe('brushDataUrl');
    expect(await submissions('ann')).toEqual([]);
    // A save shows the sent layer back (benchmark drafts are not kept).
    const draft = await t.call('POST', `/v2/annotate/${benchmark}`, {
      body: { answer: { tools: [CAR] }, brushDataUrl: mine },
      key: people.ann?.key ?? null,
    });
    expect(draft.statusCode, draft.body).toBe(200);
    expect(draft.json().data.task.brushDataUrl).toMatch(/^http:\/\/annotary\.test\/files\//);
    const res = await t.call('POST', `/v2/annotate/${benchmark}?nextStage=true`, {
      body: { answer: { tools: [CAR] }, brushDataUrl: mine },
      key: people.ann?.key ?? null,
    });
    expect(res.statusCode, res.body).toBe(200);
    const [sub] = await submissions('ann');
    expect(sub?.detail).toEqual([
      expect.objectContaining({ schemaId: 'car', kind: 'object', score: 1 }),
      { schemaId: 'road', kind: 'brush', score: 1 / 3 },
      { schemaId: 'sky', kind: 'brush', score: 0.5 },
    ]);
    // (1 + 1/3 + 1/2) / 3 * 100, to 3 decimals.
    expect(sub?.score).toBe(61.111);
  });

  it('scores a submission without a layer 0 on every class the reference paints', async () => {
    expect((await handOut('bob'))._id).toBe(benchmark);
    const res = await t.call('POST', `/v2/annotate/${benchmark}?nextStage=true`, {
      body: { answer: { tools: [CAR] } },
      key: people.bob?.key ?? null,
    });
    expect(res.statusCode, res.body).toBe(200);
    const [sub] = await submissions('bob');
    expect(sub?.detail.filter((i: Json) => i.kind === 'brush')).toEqual([
      { schemaId: 'road', kind: 'brush', score: 0 },
      { schemaId: 'sky', kind: 'brush', score: 0 },
    ]);
    expect(sub?.score).toBe(33.333);
  });

  it('scores the reference layer itself 100', async () => {
    expect((await handOut('cat'))._id).toBe(benchmark);
    const same = await uploadBrushLayer(t, benchmark, REFERENCE, people.cat?.key);
    const res = await t.call('POST', `/v2/annotate/${benchmark}?nextStage=true`, {
      body: { answer: { tools: [CAR] }, brushDataUrl: same },
      key: people.cat?.key ?? null,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await submissions('cat'))[0]?.score).toBe(100);
  });
});
