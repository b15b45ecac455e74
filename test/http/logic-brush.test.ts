import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { uploadBrushLayer } from '../helpers/brush-upload.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Logic AnnotationType conditions see brush classes: a brush class exists when the task's brush
 * layer paints at least one pixel in its colour. Layers made here with known classes route the
 * submitted tasks by `exists___` and `not-exist___` filters on them.
 */

const W = 20;
const H = 10;
const ONTOLOGY = {
  tools: [
    { schemaId: 'road', title: 'Road', tool: 'brush', color: '#ff0000' },
    { schemaId: 'sky', title: 'Sky', tool: 'brush', color: '#0000ff' },
    { schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#00ff00' },
  ],
};
const STAGES = [
  { id: 'Start', type: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', next: ['Check'] },
  {
    id: 'Check',
    type: 'Logic',
    next: ['RoadOnly', 'Sky', 'Complete'],
    logic: {
      conditions: [
        { type: 'AnnotationType', index: 0, value: { tools: [{ filter: ['exists___road', 'not-exist___sky'] }] } },
        { type: 'AnnotationType', index: 1, value: { tools: [{ filter: ['exists___sky'] }] } },
      ],
    },
  },
  { id: 'RoadOnly', type: 'Hold', next: ['Complete'] },
  { id: 'Sky', type: 'Hold', next: ['Complete'] },
  { id: 'Complete', type: 'Complete', next: [] },
];

/** A transparent layer with the given pixels painted [x, y, rgba]. */
function layer(pixels: [number, number, number[]][]): Buffer {
  const png = new PNG({ width: W, height: H });
  for (const [x, y, rgba] of pixels) png.data.set(rgba, (y * W + x) * 4);
  return PNG.sync.write(png);
}

describe.each(ENGINES)('Logic conditions on brush classes on %s', (engine) => {
  let t: TestApp;
  let pid: string;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Roads' } })).json().data.project._id;
    const res = await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY, stages: STAGES } });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => t.close());

  const submitted = async (name: string, png: Buffer | null): Promise<string> => {
    const imported = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: `https://cdn.example.com/${name}`, metadata: { width: W, height: H } }] },
    });
    expect(imported.statusCode, imported.body).toBe(201);
    const id = imported.json().data.assets[0].taskId as string;
    const body = png ? { answer: {}, brushDataUrl: await uploadBrushLayer(t, id, png) } : { answer: {} };
    const res = await t.call('POST', `/v2/annotate/${id}?nextStage=true`, { body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.task.stage as string;
  };

  it('routes by the classes the layer paints: one red pixel is road, a blue one is sky', async () => {
    expect(await submitted('road.png', layer([[3, 4, [255, 0, 0, 255]]]))).toBe('RoadOnly');
    expect(
      await submitted(
        'both.png',
        layer([
          [3, 4, [255, 0, 0, 255]],
          [19, 9, [0, 0, 255, 255]],
        ]),
      ),
    ).toBe('Sky');
  });

  it('a layer painting no class (or none at all) routes to the else output', async () => {
    expect(await submitted('empty.png', layer([]))).toBe('Complete');
    expect(await submitted('none.png', null)).toBe('Complete');
  });
});
