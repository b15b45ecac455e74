import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { download, listening, unzip } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Segmentation zones on a video: stored as keyframes, expanded by the export to every frame,
 * moving vertex by vertex between keyframes whose zones, holes and vertex counts match, the
 * earlier shape held where they do not.
 */

const ONTOLOGY = { tools: [{ schemaId: 'lake', title: 'Lake', tool: 'segmentation', color: '#0000ff' }] };
const square = (x: number, size: number, y = 0) => [
  [x, y],
  [x + size, y],
  [x + size, y + size],
  [x, y + size],
];
const lake = (objectId: string, page: number, region: number[][], holes: number[][][] = []) => ({
  schemaId: 'lake',
  objectId,
  page,
  segmentation: { zones: [{ region, holes }] },
});
const KEYFRAMES = [
  // Moves and grows, its hole with it: interpolated.
  lake('moving', 0, square(0, 10), [square(2, 2, 2)]),
  lake('moving', 4, square(40, 20), [square(44, 4, 4)]),
  // A fifth vertex on the later keyframe: held until it.
  lake('reshaped', 0, square(100, 10)),
  lake('reshaped', 4, [
    [140, 0],
    [145, -5],
    [150, 0],
    [150, 10],
    [140, 10],
  ]),
];

type Entry = Record<string, unknown> & { objectId: string; page: number };

describe.each(ENGINES)('segmentation zones on video frames on %s', (engine) => {
  let t: TestApp;
  let tools: Entry[];

  beforeAll(async () => {
    t = await makeTestApp(engine);
    const base = await listening(t.app);
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Lakes' } })).json().data.project._id;
    expect((await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY } })).statusCode).toBe(200);
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: [
          {
            data: 'https://cdn.example.com/lake.mp4',
            externalId: 'lake',
            metadata: { frameTotal: 5, width: 200, height: 100 },
          },
        ],
      },
    });
    const taskId = res.json().data.assets[0].taskId as string;
    const put = await t.call('POST', `/v2/annotate/${taskId}`, { body: { answer: { tools: KEYFRAMES } } });
    expect(put.statusCode, put.body).toBe(200);
    const exported = await t.call('GET', `/v2/export?project=${pid}&format=json&includeSegmentationPoints=true`);
    expect(exported.statusCode, exported.body).toBe(200);
    const [entry] = await unzip((await download(exported.json().data.exportPath as string, base)).body);
    tools = (JSON.parse(entry?.text ?? '[]') as { task: { tools: Entry[] } }[])[0]?.task.tools ?? [];
  });
  afterAll(() => t.close());

  const at = (objectId: string, page: number) => tools.find((e) => e.objectId === objectId && e.page === page);

  it('moves zones with matching vertex counts linearly, holes included', () => {
    expect(tools.filter((e) => e.objectId === 'moving').map((e) => e.page)).toEqual([0, 1, 2, 3, 4]);
    // Frame 2: halfway from x 0, size 10 (hole at 2, 2, size 2) to x 40, size 20 (hole at 44, 4, size 4).
    expect(at('moving', 2)).toMatchObject({
      interpolated: true,
      segmentation: { zones: [{ region: square(20, 15), holes: [square(23, 3, 3)] }] },
    });
    expect(at('moving', 4)).not.toHaveProperty('interpolated');
  });

  it('holds the earlier shape until a keyframe whose vertex count differs', () => {
    expect(at('reshaped', 3)).toMatchObject({
      interpolated: true,
      segmentation: { zones: [{ region: square(100, 10), holes: [] }] },
    });
    expect((at('reshaped', 4)?.segmentation as { zones: { region: unknown[] }[] }).zones[0]?.region).toHaveLength(5);
  });
});
