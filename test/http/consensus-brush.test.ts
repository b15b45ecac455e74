import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { type PaintedRect, rectLayer, uploadBrushLayer } from '../helpers/brush-upload.js';
import { ENGINES } from '../helpers/stores.js';
import { consensusWorkflow } from '../helpers/street-scene.js';

/*
 * Consensus compares brush layers per brush class: the IoU of the pixels each copy's layer
 * painted in the class's colour. Hand-made 40 x 30 layers with known per-class IoU; the round's
 * score and the Quality page's agreement per class follow.
 */

const W = 40;
const H = 30;
const RED = [255, 0, 0, 255];
const BLUE = [0, 0, 255, 255];

const ONTOLOGY = {
  tools: [
    { schemaId: 'road', title: 'Road', tool: 'brush', color: '#ff0000' },
    { schemaId: 'sky', title: 'Sky', tool: 'brush', color: '#0000ff' },
  ],
};
const layer = (rects: PaintedRect[]) => rectLayer(W, H, rects);

describe.each(ENGINES)('consensus of brush layers on %s', (engine) => {
  let t: TestApp;
  let pid: string;

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Brushes' } })).json().data.project._id;
    const res = await t.call('POST', `/v2/project/${pid}`, {
      body: { categorySchema: ONTOLOGY, stages: consensusWorkflow({ threshold: 0.9, adjudicationMethod: 'first' }) },
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => t.close());

  const importOne = async (name: string): Promise<string> => {
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: `https://cdn.example.com/${name}`, metadata: { width: W, height: H } }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.assets[0].taskId as string;
  };
  const copyIn = async (parent: string, stage: string): Promise<string> => {
    const res = await t.call('GET', `/v2/project/${pid}/tasks?limit=100&stage=${stage}`);
    return (res.json().data.tasks as { _id: string; parentTask: string }[]).find((c) => c.parentTask === parent)
      ?._id as string;
  };
  /** Uploads the copy's layer and submits it with an empty answer. */
  const submit = async (id: string, png: Buffer) => {
    const brushDataUrl = await uploadBrushLayer(t, id, png);
    const res = await t.call('POST', `/v2/annotate/${id}?nextStage=true`, { body: { answer: {}, brushDataUrl } });
    expect(res.statusCode, res.body).toBe(200);
  };
  const task = async (id: string) => (await t.call('GET', `/v2/task/${id}`)).json().data.task;
  const round = async (name: string, first: Buffer, second: Buffer) => {
    const parent = await importOne(name);
    await submit(await copyIn(parent, 'c1'), first);
    await submit(await copyIn(parent, 'c2'), second);
    return task(parent);
  };

  it('scores each brush class by the IoU of its pixels and leaves by next[1] below the threshold', async () => {
    // Road: 10 x 10 squares shifted by 5 columns, 50 shared of 150 (1/3). Sky: the same 20
    // pixels in both (1). Score (1/3 + 1) / 2.
    const parent = await round(
      'half.png',
      layer([
        [RED, 0, 0, 10, 10],
        [BLUE, 20, 20, 30, 22],
      ]),
      layer([
        [RED, 5, 0, 15, 10],
        [BLUE, 20, 20, 30, 22],
      ]),
    );
    expect(parent).toMatchObject({ stage: 'Disputed', consensusScore: 0.666667 });
  });

  it('agrees fully on equal layers, and a class painted in one copy only scores 0', async () => {
    const same = layer([[RED, 2, 3, 12, 9]]);
    expect(await round('same.png', same, same)).toMatchObject({ stage: 'Done', consensusScore: 1 });
    // Road equal (1), sky painted in the first copy only (0): 1/2.
    const parent = await round(
      'one-sided.png',
      layer([
        [RED, 2, 3, 12, 9],
        [BLUE, 0, 20, 4, 24],
      ]),
      same,
    );
    expect(parent).toMatchObject({ stage: 'Disputed', consensusScore: 0.5 });
  });

  it('shows the agreement per brush class on the Quality page', async () => {
    const res = await t.call('POST', `/v2/project/${pid}/quality`, { body: {} });
    expect(res.statusCode, res.body).toBe(200);
    const agreement = res.json().data.agreement as { schemaId: string; value: number; measures: number }[];
    // Road over three rounds: (1/3 + 1 + 1) / 3; sky over the two rounds that painted it: (1 + 0) / 2.
    expect(agreement.map((a) => [a.schemaId, a.value, a.measures])).toEqual([
      ['road', 0.7778, 3],
      ['sky', 0.5, 2],
    ]);
  });
});
