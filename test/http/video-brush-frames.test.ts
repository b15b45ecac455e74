import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { type PaintedRect, rectLayer, uploadBrushLayer } from '../helpers/brush-upload.js';
import { exportZip, pythonCheck } from '../helpers/dataset-fixture.js';
import { listen } from '../helpers/files.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Brush layers of a video, one per frame: saved with `brushFrames` (only the frames named change,
 * frame 0's layer being `brushDataUrl` too, as a pre-label's is), answered signed on the task and
 * in exports, where COCO and YOLO hold each frame's layer on that frame's image; bad frames and
 * links refused by name.
 */

const run = promisify(execFile);
const W = 40;
const H = 30;
const FRAMES = 12;
const WATER = [0, 0, 255, 255];
const GRASS = [0, 255, 0, 255];
const ONTOLOGY = {
  tools: [
    { schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000' },
    { schemaId: 'water', title: 'Water', tool: 'brush', color: '#0000ff' },
    { schemaId: 'grass', title: 'Grass', tool: 'brush', color: '#00ff00' },
  ],
};
/** Frame 1: water over 10 x 5 pixels; frame 10: grass over 6 x 20 (two areas of 6 x 10). */
const FRAME_1: PaintedRect[] = [[WATER, 2, 3, 12, 8]];
const FRAME_10: PaintedRect[] = [
  [GRASS, 20, 0, 26, 10],
  [GRASS, 20, 20, 26, 30],
];
/** A car on frame 3 only: its track is shown on frames 3 to 11. */
const CAR = { schemaId: 'car', objectId: 'car-1', page: 3, 'bounding-box': { x: 1, y: 1, width: 4, height: 4 } };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Frame = { page: number; url: string };

function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

describe.each(ENGINES)('brush layers of video frames on %s', (engine) => {
  let t: TestApp;
  let base: string;
  let pid: string;
  let clip: string;
  let still: string;

  const annotate = (taskId: string, body: object) => t.call('POST', `/v2/annotate/${taskId}`, { body });
  const taskOf = async (taskId: string) => (await t.call('GET', `/v2/task/${taskId}`)).json().data.task as Json;
  /** The pixel at (x, y) of the PNG a link serves. */
  const pixelsOf = async (url: string) => {
    const read = await t.app.inject({ method: 'GET', url: pathOf(url) });
    expect(read.statusCode).toBe(200);
    const png = PNG.sync.read(read.rawPayload);
    expect([png.width, png.height]).toEqual([W, H]);
    return (x: number, y: number) => [...png.data.subarray((y * W + x) * 4, (y * W + x) * 4 + 4)];
  };

  beforeAll(async () => {
    t = await makeTestApp(engine);
    base = (await listen(t.app))('http://annotary.test');
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Brushed clips' } })).json().data.project._id;
    expect((await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY } })).statusCode).toBe(200);
    const imported = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: [
          {
            data: 'https://cdn.example.com/clip.mp4',
            externalId: 'clip.mp4',
            metadata: { width: W, height: H, frameTotal: FRAMES, frameRate: 30 },
          },
          { data: 'https://cdn.example.com/still.jpg', externalId: 'still.jpg', metadata: { width: W, height: H } },
        ],
      },
    });
    expect(imported.statusCode, imported.body).toBe(201);
    [clip, still] = (imported.json().data.assets as { taskId: string }[]).map((a) => a.taskId) as [string, string];
  });
  afterAll(() => t.close());

  it('saves the frames named, keeps the others, and answers every frame layer signed with frame 0 as brushDataUrl', async () => {
    const one = await uploadBrushLayer(t, clip, rectLayer(W, H, FRAME_1));
    const ten = await uploadBrushLayer(t, clip, rectLayer(W, H, FRAME_10));
    const saved = await annotate(clip, {
      answer: { tools: [CAR] },
      brushFrames: [
        { page: 10, url: ten },
        { page: 1, url: one },
      ],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((saved.json().data.task.brushFrames as Frame[]).map((f) => f.page)).toEqual([1, 10]);

    let task = await taskOf(clip);
    expect(task.brushDataUrl).toBeNull();
    const frames = task.brushFrames as Frame[];
    expect(frames.map((f) => f.page)).toEqual([1, 10]);
    // Each link is signed afresh for an hour, and serves its own frame's pixels.
    for (const f of frames) {
      const expiry = Number(/\/files\/(\d+)\//.exec(f.url)?.[1]);
      expect(expiry - Date.now() / 1000).toBeGreaterThan(3600 - 120);
      expect(expiry - Date.now() / 1000).toBeLessThanOrEqual(3600);
    }
    const at1 = await pixelsOf(frames[0]?.url as string);
    expect(at1(5, 5)).toEqual(WATER);
    expect(at1(22, 5)).toEqual([0, 0, 0, 0]);
    const at10 = await pixelsOf(frames[1]?.url as string);
    expect(at10(22, 5)).toEqual(GRASS);
    expect(at10(5, 5)).toEqual([0, 0, 0, 0]);

    // brushDataUrl alone on a video is frame 0's layer; the other frames keep theirs.
    const zero = await uploadBrushLayer(t, clip, rectLayer(W, H, FRAME_10));
    expect((await annotate(clip, { brushDataUrl: zero })).statusCode).toBe(200);
    task = await taskOf(clip);
    expect((task.brushFrames as Frame[]).map((f) => f.page)).toEqual([0, 1, 10]);
    expect((await pixelsOf(task.brushDataUrl as string))(22, 25)).toEqual(GRASS);
    expect(task.answer.tools).toHaveLength(1);

    // "" removes one frame's layer; frame 0's going clears brushDataUrl.
    expect((await annotate(clip, { brushFrames: [{ page: 0, url: '' }] })).statusCode).toBe(200);
    task = await taskOf(clip);
    expect(task.brushDataUrl).toBeNull();
    expect((task.brushFrames as Frame[]).map((f) => f.page)).toEqual([1, 10]);

    // A still image answers no brushFrames.
    expect(await taskOf(still)).not.toHaveProperty('brushFrames');
  });

  it('refuses bad frames and bad links by name and saves nothing of the body', async () => {
    const good = await uploadBrushLayer(t, clip, rectLayer(W, H, FRAME_1));
    const before = await taskOf(clip);
    const small = await uploadBrushLayer(t, still, rectLayer(W, H, FRAME_1));
    const cases: [object, string, RegExp][] = [
      [{ brushFrames: [{ page: FRAMES, url: good }] }, 'brushFrames[0].page', /below 12/],
      [
        {
          brushFrames: [
            { page: 4, url: good },
            { page: 4, url: '' },
          ],
        },
        'brushFrames[1].page',
        /frame 4's layer, as brushFrames\[0\]/,
      ],
      [{ brushDataUrl: good, brushFrames: [{ page: 0, url: good }] }, 'brushDataUrl', /as brushFrames\[0\]/],
      [{ brushFrames: [{ page: 2, url: 'https://cdn.example.com/layer.png' }] }, 'brushFrames[0].url', /file store/],
    ];
    for (const [body, field, message] of cases) {
      const res = await annotate(clip, { answer: { tools: [] }, ...body });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors).toEqual([{ field, message: expect.stringMatching(message) }]);
    }
    // A PNG of another size than the video's.
    const png = new PNG({ width: W + 2, height: H });
    const bigger = await t.app.inject({
      method: 'POST',
      url: `/v2/task/${still}/brush`,
      headers: { apikey: t.ownerKey, 'content-type': 'image/png' },
      payload: PNG.sync.write(png),
    });
    expect(bigger.statusCode).toBe(400);
    const q = `project=${pid}&name=wide.png&type=brushes`;
    const { uploadUrl, readUrl } = (await t.call('GET', `/v2/getUploadUrl?${q}`)).json().data;
    await t.app.inject({ method: 'PUT', url: pathOf(uploadUrl), payload: PNG.sync.write(png) });
    const wide = await annotate(clip, { brushFrames: [{ page: 2, url: readUrl }] });
    expect(wide.statusCode).toBe(400);
    expect(wide.json().errors).toEqual([{ field: 'brushFrames[0].url', message: expect.stringMatching(/42x30/) }]);
    // brushFrames is for videos.
    const onStill = await annotate(still, { brushFrames: [{ page: 0, url: small }] });
    expect(onStill.statusCode).toBe(400);
    expect(onStill.json().errors).toEqual([{ field: 'brushFrames', message: expect.stringMatching(/videos/) }]);
    // A negative frame is refused by the schema, naming the item.
    const negative = await annotate(clip, { brushFrames: [{ page: -1, url: good }] });
    expect(negative.statusCode).toBe(400);
    expect(JSON.stringify(negative.json().errors)).toMatch(/brushFrames/);

    const after = await taskOf(clip);
    expect(after.answer).toEqual(before.answer);
    expect((after.brushFrames as Frame[]).map((f) => f.page)).toEqual([1, 10]);
  });

  it("takes a pre-label's brushDataUrl as frame 0's layer, in place of the video's frame layers", async () => {
    const stages = [
      { id: 'Start', type: 'Start', name: 'Start', next: ['Label'], autoForward: false },
      { id: 'Label', type: 'Label', name: 'Label', next: ['Complete'] },
      { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
    ];
    const other = (await t.call('POST', '/v2/project', { body: { name: 'Pre-labelled clips' } })).json().data.project
      ._id as string;
    const set = await t.call('POST', `/v2/project/${other}`, { body: { stages, categorySchema: ONTOLOGY } });
    expect(set.statusCode, set.body).toBe(200);
    const imported = await t.call('POST', `/v2/project/${other}/cloud`, {
      body: {
        assets: [
          {
            data: 'https://cdn.example.com/other.mp4',
            externalId: 'other.mp4',
            metadata: { width: W, height: H, frameTotal: FRAMES },
          },
        ],
      },
    });
    const taskId = imported.json().data.assets[0].taskId as string;
    const painted = await uploadBrushLayer(t, taskId, rectLayer(W, H, FRAME_1));
    const saved = await annotate(taskId, { brushFrames: [{ page: 4, url: painted }] });
    expect(saved.statusCode, saved.body).toBe(200);

    const prelabel = await uploadBrushLayer(t, taskId, rectLayer(W, H, FRAME_10));
    const sent = await t.call('POST', '/v2/import/labels', {
      body: { project: other, jsonContent: [{ externalId: 'other.mp4', objects: [], brushDataUrl: prelabel }] },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json().data.imported).toBe(1);
    const task = await taskOf(taskId);
    expect((task.brushFrames as Frame[]).map((f) => f.page)).toEqual([0]);
    expect((await pixelsOf((task.brushFrames as Frame[])[0]?.url as string))(22, 5)).toEqual(GRASS);
    expect((await pixelsOf(task.brushDataUrl as string))(22, 5)).toEqual(GRASS);
  });

  it('exports each frame layer: JSON items list them signed for a day, COCO and YOLO hold them on their frames', async () => {
    const { entries } = await exportZip(t, base, pid, 'json');
    const items = JSON.parse([...entries.values()][0]?.toString('utf8') ?? '[]') as Json[];
    const item = items.find((i) => i.externalId === 'clip.mp4') as Json;
    const frames = item.task.brushFrames as Frame[];
    expect(frames.map((f) => f.page)).toEqual([1, 10]);
    const expiry = Number(/\/files\/(\d+)\//.exec(frames[0]?.url ?? '')?.[1]);
    expect(expiry - Date.now() / 1000).toBeGreaterThan(24 * 3600 - 300);
    expect((await pixelsOf(frames[1]?.url as string))(22, 25)).toEqual(GRASS);
    expect(items.find((i) => i.externalId === 'still.jpg')?.task).not.toHaveProperty('brushFrames');

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-video-brush-'));
    try {
      const zips = new Map<string, Map<string, Buffer>>();
      for (const format of ['coco', 'yolo']) zips.set(format, (await exportZip(t, base, pid, format)).entries);
      const found = await pythonCheck(zips, dir);
      const coco = found.coco as Json;
      const raw = JSON.parse(zips.get('coco')?.get('annotations/instances.json')?.toString('utf8') ?? '{}') as Json;
      const imageOf = new Map((raw.annotations as Json[]).map((a) => [a.id, a.image_id]));
      const images = new Map((coco.images as Json[]).map((im) => [im.id, im.frame_index]));
      const frameOf = (annotationId: number) => images.get(imageOf.get(annotationId));
      // Frames 1 (a layer), 3 to 11 (the car's track, frame 10 with a layer too).
      expect([...images.values()].filter((f) => f !== undefined)).toEqual([1, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      const brush = (coco.annotations as Json[]).filter((a) => a.iscrowd === 1);
      expect(brush.map((a) => [frameOf(a.id), a.category_id, a.raster_area, a.bbox])).toEqual([
        [1, 2, 50, [2, 3, 10, 5]],
        [10, 3, 120, [20, 0, 6, 30]],
      ]);
      const cars = (coco.annotations as Json[]).filter((a) => a.object_id === 'car-1');
      expect(cars.map((a) => frameOf(a.id))).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11]);

      const { stdout } = await run('/usr/bin/python3', [
        path.join(import.meta.dirname, '..', 'helpers', 'python', 'yolo_areas.py'),
        path.join(dir, 'yolo', 'labels'),
        String(W),
        String(H),
      ]);
      const yolo = JSON.parse(stdout) as Json;
      // Class numbers: Car 0, Water 1, Grass 2.
      expect(yolo['clip_frame_000001.txt']).toEqual({ '1': { lines: 1, pixels: 50, area: 50, bbox: [2, 3, 10, 5] } });
      expect(yolo['clip_frame_000010.txt']['2']).toEqual({ lines: 2, pixels: 120, area: 120, bbox: [20, 0, 6, 30] });
      expect(yolo['clip_frame_000005.txt']).toEqual({ '0': expect.objectContaining({ lines: 1 }) });
      const readme = zips.get('yolo')?.get('README.md')?.toString('utf8');
      expect(readme).toMatch(/- brush labels \(one per connected area of a class\): 3/);
      expect(readme).not.toMatch(/brush layers of videos/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
