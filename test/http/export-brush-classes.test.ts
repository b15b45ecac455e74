import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { type PaintedRect, rectLayer, uploadBrushLayer } from '../helpers/brush-upload.js';
import { exportZip, pythonCheck } from '../helpers/dataset-fixture.js';
import { listen } from '../helpers/files.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Brush layers in the COCO and YOLO exports: a 40 x 30 layer painted with known rectangles in two
 * brush classes (one area with a hole, one class in two separate areas), exported and read back
 * by Python (numpy decoding COCO's RLE, scikit-image rasterising YOLO's lines), pixel counts,
 * boxes and areas compared with the rectangles.
 */

const run = promisify(execFile);
const W = 40;
const H = 30;
const WATER = [0, 0, 255, 255];
const GRASS = [0, 255, 0, 255];
const NONE = [0, 0, 0, 0];

const ONTOLOGY = {
  tools: [
    { schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000' },
    { schemaId: 'water', title: 'Water', tool: 'brush', color: '#0000ff' },
    { schemaId: 'field', title: 'Field', tool: 'segmentation', color: '#00ffff' },
    { schemaId: 'grass', title: 'Grass', tool: 'brush', color: '#00ff00' },
  ],
};

/** Rectangles [x0, y0, x1, y1) painted in order (later over earlier). */
const RECTS: PaintedRect[] = [
  [WATER, 2, 3, 12, 10], // 70 pixels
  [NONE, 5, 5, 7, 7], // a 4-pixel hole in it
  [WATER, 30, 20, 38, 28], // 64 pixels, apart
  [GRASS, 15, 0, 25, 30], // 300 pixels, the full height
  [GRASS, 15, 12, 17, 14], // painted twice: no change
];
const AREA = { water: 70 - 4 + 64, grass: 300 };

const layer = () => rectLayer(W, H, RECTS);

/** A zone 20 x 10 with a 4 x 4 hole, drawn as a person would (the hole wound like its region). */
const FIELD = {
  zones: [
    {
      region: [
        [0, 12],
        [12, 12],
        [12, 22],
        [0, 22],
      ],
      holes: [
        [
          [4, 14],
          [8, 14],
          [8, 18],
          [4, 18],
        ],
      ],
    },
  ],
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe.each(ENGINES)('brush classes in coco and yolo exports on %s', (engine) => {
  let t: TestApp;
  let dir: string;
  let coco: Json;
  let yolo: Json;
  let yoloAreas: Json;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    const onServer = await listen(t.app);
    const base = onServer('http://annotary.test');
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Brush classes' } })).json().data.project._id;
    expect((await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY } })).statusCode).toBe(200);
    const imported = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: [
          { data: 'https://cdn.example.com/pond.jpg', externalId: 'pond.jpg', metadata: { width: W, height: H } },
          { data: 'https://cdn.example.com/bare.jpg', externalId: 'bare.jpg', metadata: { width: W, height: H } },
        ],
      },
    });
    const [pond, bare] = (imported.json().data.assets as { taskId: string }[]).map((a) => a.taskId);
    const brushDataUrl = await uploadBrushLayer(t, pond as string, layer());
    const tools = [
      { schemaId: 'car', objectId: 'car-1', 'bounding-box': { x: 1, y: 24, width: 6, height: 4 } },
      { schemaId: 'field', objectId: 'field-1', segmentation: FIELD },
    ];
    const saved = await t.call('POST', `/v2/annotate/${pond}`, { body: { answer: { tools }, brushDataUrl } });
    expect(saved.statusCode, saved.body).toBe(200);
    const plain = await t.call('POST', `/v2/annotate/${bare}`, {
      body: {
        answer: {
          tools: [{ schemaId: 'car', objectId: 'car-2', 'bounding-box': { x: 0, y: 0, width: 4, height: 4 } }],
        },
      },
    });
    expect(plain.statusCode, plain.body).toBe(200);

    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-brush-classes-'));
    const zips = new Map<string, Map<string, Buffer>>();
    for (const format of ['coco', 'yolo']) zips.set(format, (await exportZip(t, base, pid, format)).entries);
    const found = await pythonCheck(zips, dir);
    coco = found.coco as Json;
    yolo = found.yolo as Json;
    yolo.readme = zips.get('yolo')?.get('README.md')?.toString('utf8');
    const { stdout } = await run('/usr/bin/python3', [
      path.join(import.meta.dirname, '..', 'helpers', 'python', 'yolo_areas.py'),
      path.join(dir, 'yolo', 'labels'),
      String(W),
      String(H),
    ]);
    yoloAreas = JSON.parse(stdout) as Json;
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('coco: one RLE annotation per brush class and image, iscrowd 1, exact pixel count and box', () => {
    // Only the pond has a layer: the other image gets no brush annotation.
    const brush = (coco.annotations as Json[]).filter((a) => a.iscrowd === 1);
    expect(brush).toHaveLength(2);
    const byCategory = new Map(brush.map((a) => [a.category_id, a]));
    // Categories are ontology positions + 1: Water 2, Grass 4.
    expect([...byCategory.keys()].sort()).toEqual([2, 4]);
    expect(byCategory.get(2)).toMatchObject({ area: AREA.water, raster_area: AREA.water, bbox: [2, 3, 36, 25] });
    expect(byCategory.get(2)?.raster_bbox).toEqual([2, 3, 36, 25]);
    expect(byCategory.get(4)).toMatchObject({ area: AREA.grass, raster_area: AREA.grass, bbox: [15, 0, 10, 30] });
    // The vector objects are there beside them.
    const objects = (coco.annotations as Json[]).filter((a) => a.object_id).map((a) => a.object_id);
    expect(objects.sort()).toEqual(['car-1', 'car-2', 'field-1']);
  });

  it('yolo: segment lines per connected brush area with holes cut in, exact pixels and areas', () => {
    expect(yolo.data).toMatchObject({
      task: 'segment',
      nc: 4,
      names: { 0: 'Car', 1: 'Water', 2: 'Field', 3: 'Grass' },
    });
    const pond = yoloAreas['pond.txt'] as Json;
    // Water: two areas, two lines; the hole is left empty by the even-odd fill and the shoelace area.
    expect(pond['1']).toEqual({ lines: 2, pixels: AREA.water, area: AREA.water, bbox: [2, 3, 36, 25] });
    expect(pond['3']).toEqual({ lines: 1, pixels: AREA.grass, area: AREA.grass, bbox: [15, 0, 10, 30] });
    // The segmentation zone keeps its hole the same way: 120 - 16.
    expect(pond['2']).toEqual({ lines: 1, pixels: 104, area: 104, bbox: [0, 12, 12, 10] });
    expect(pond['0']).toMatchObject({ lines: 1, pixels: 24 });
    expect(yoloAreas['bare.txt']).toEqual({ '0': { lines: 1, pixels: 16, area: 16, bbox: [0, 0, 4, 4] } });
    expect(yolo.readme).toMatch(/- brush labels \(one per connected area of a class\): 3/);
    expect(yolo.readme).not.toMatch(/brush layers \(YOLO cannot hold them\)/);
    expect(yolo.readme).not.toMatch(/holes of segmentation zones/);
  });
});
