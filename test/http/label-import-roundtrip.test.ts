import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { type DatasetProject, datasetProject, exportZip, H, ONTOLOGY, W } from '../helpers/dataset-fixture.js';
import { listen } from '../helpers/files.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Round trips: what Annotary exports in a dataset format, imported back into a project with the
 * same ontology and assets, gives the same answers (geometry within 0.5 px, classes and answers
 * equal) for every kind the format holds.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'], autoForward: false },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Complete'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];

const isRing = (v: unknown): v is number[][] =>
  Array.isArray(v) &&
  v.length >= 3 &&
  v.every((p) => Array.isArray(p) && p.length === 2 && p.every((n) => typeof n === 'number'));

/**
 * Every number of a value, in order (geometry compared number by number); a ring's points are
 * taken in sorted order, since a traced outline may start elsewhere or run the other way.
 */
const numbers = (v: unknown): number[] => {
  if (typeof v === 'number') return [v];
  if (isRing(v))
    return [...v].sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number)).flat();
  if (Array.isArray(v)) return v.flatMap(numbers);
  return v && typeof v === 'object' ? Object.values(v).flatMap(numbers) : [];
};

function expectClose(got: unknown, want: unknown, what: string) {
  const a = numbers(got);
  const b = numbers(want);
  expect(a.length, `${what}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`).toBe(b.length);
  a.forEach((v, i) =>
    expect(Math.abs(v - (b[i] as number)), `${what}[${i}]: ${JSON.stringify(got)}`).toBeLessThanOrEqual(0.5),
  );
}

/** The video's box on each frame it shows: keyframes at 0 (x 1) and 5 (x 6), stopped at 7 (x 8), moving linearly. */
const SHOWN_FRAMES = Array.from({ length: 7 }, (_, page) => [page, page + 1]);

describe.each(ENGINES)('label import round trips on %s', (engine) => {
  let t: TestApp;
  let base: string;
  let source: DatasetProject;
  let answers: Record<string, Json>;

  /** A fresh project with the same ontology and assets, tasks held in Start. */
  const target = async () => {
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Target' } })).json().data.project._id as string;
    await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY, stages: STAGES } });
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: [
          { data: 'https://cdn.example.com/street.jpg', externalId: 'street.jpg', metadata: { width: W, height: H } },
          {
            data: 'https://cdn.example.com/drive.mp4',
            externalId: 'drive.mp4',
            metadata: { width: W, height: H, frameTotal: 10 },
          },
          { data: 'https://cdn.example.com/unsized.jpg', externalId: 'unsized.jpg' },
        ],
      },
    });
    const [image, video, unsized] = (res.json().data.assets as { taskId: string }[]).map((a) => a.taskId);
    return { pid, tasks: { image, video, unsized } as Record<string, string> };
  };
  const importBack = async (format: string, importFormat = format) => {
    const { zip } = await exportZip(t, base, source.pid, format);
    const into = await target();
    const res = await t.app.inject({
      method: 'POST',
      url: `/v2/project/${into.pid}/import/labels?format=${importFormat}`,
      headers: { apikey: t.ownerKey, 'content-type': 'application/zip' },
      payload: zip,
    });
    return { res, into };
  };
  const taskOf = async (id: string | undefined) => (await t.call('GET', `/v2/task/${id}`)).json().data.task as Json;
  const bySchema = (task: Json, schemaId: string) =>
    (task.answer.tools as Json[]).filter((o) => o.schemaId === schemaId);

  beforeAll(async () => {
    t = await makeTestApp(engine);
    const onServer = await listen(t.app);
    base = onServer('http://annotary.test');
    source = await datasetProject(t, onServer);
    answers = {};
    for (const [k, id] of Object.entries(source.tasks)) answers[k] = (await taskOf(id)).answer;
  });
  afterAll(() => t.close());

  it('coco: boxes, rotated boxes, polygons, zones with holes (RLE), points, brush, answers and video frames come back', async () => {
    const { res, into } = await importBack('coco');
    expect(res.statusCode, res.body).toBe(200);
    const report = res.json().data.report;
    expect(report).toMatchObject({ tasks: 3, unmatchedCategories: [] });
    const image = await taskOf(into.tasks.image);
    expect(image.isPreLabeled).toBe(true);
    const want = answers.image as Json;
    for (const id of ['car', 'truck', 'road', 'sign', 'field']) {
      const [got] = bySchema(image, id);
      const src = (want.tools as Json[]).find((o) => o.schemaId === id) as Json;
      const kind = Object.keys(src).find((k) => !['schemaId', 'objectId', 'classifications'].includes(k)) as string;
      expectClose(got?.[kind], src[kind], id);
      expect(got?.objectId).toBe(src.objectId);
    }
    expect(bySchema(image, 'car')[0]?.classifications).toEqual([{ schemaId: 'colour', answer: 'red' }]);
    expect(image.answer.classifications).toEqual([{ schemaId: 'weather', answer: 'sun' }]);
    expect(image.brushDataUrl).toMatch(/^http:\/\/annotary\.test\/files\//);
    // The export shows the track on every frame it is visible on (0 to 6: it stops at 7), each
    // frame an image of its own; they come back to the video as one entry a frame, with its page.
    const video = await taskOf(into.tasks.video);
    expect(video.answer.tools.map((o: Json) => [o.page, o['bounding-box'].x])).toEqual(SHOWN_FRAMES);
  });

  it('cvat: every shape, masks as zones with holes and as the brush layer, tags, and the video track with its stop', async () => {
    const { res, into } = await importBack('cvat');
    expect(res.statusCode, res.body).toBe(200);
    const image = await taskOf(into.tasks.image);
    const want = answers.image as Json;
    for (const id of ['car', 'truck', 'road', 'lane', 'sign', 'field']) {
      const [got] = bySchema(image, id);
      const src = (want.tools as Json[]).find((o) => o.schemaId === id) as Json;
      const kind = Object.keys(src).find((k) => !['schemaId', 'objectId', 'classifications'].includes(k)) as string;
      expectClose(got?.[kind], src[kind], id);
    }
    expect(image.answer.classifications).toEqual([{ schemaId: 'weather', answer: 'sun' }]);
    expect(image.brushDataUrl).toBeTruthy();
    const video = await taskOf(into.tasks.video);
    expect(video.answer.tools.map((o: Json) => [o.page, o.interpolationStopped ?? false])).toEqual([
      [0, false],
      [5, false],
      [7, true],
    ]);
  });

  it('voc: boxes with answers, rotated boxes from their attributes, images of any size', async () => {
    const { res, into } = await importBack('voc');
    expect(res.statusCode, res.body).toBe(200);
    const image = await taskOf(into.tasks.image);
    expectClose(bySchema(image, 'car')[0]?.['bounding-box'], { x: 4.5, y: 6, width: 20, height: 10 }, 'car');
    expectClose(
      bySchema(image, 'truck')[0]?.['rotated-bounding-box'],
      { x: 30, y: 8, width: 16, height: 8, rotation: 30 },
      'truck',
    );
    expect(bySchema(image, 'car')[0]?.classifications).toEqual([{ schemaId: 'colour', answer: 'red' }]);
    expect(image.answer.classifications).toEqual([{ schemaId: 'weather', answer: 'sun' }]);
    expect((await taskOf(into.tasks.unsized)).answer.tools).toHaveLength(1);
  });

  it('yolo: normalised lines scaled by the asset size; images of unknown size reported', async () => {
    const { res, into } = await importBack('yolo');
    expect(res.statusCode, res.body).toBe(200);
    const report = res.json().data.report;
    expect(report.skippedImageList).toEqual([expect.objectContaining({ source: 'labels/unsized.txt' })]);
    // The video's frames, images of their own in YOLO, come back to the video with their page.
    const video = await taskOf(into.tasks.video);
    expect(video.answer.tools.map((o: Json) => [o.page, Math.round(o['bounding-box'].x)])).toEqual(SHOWN_FRAMES);
    const image = await taskOf(into.tasks.image);
    expectClose(bySchema(image, 'car')[0]?.['bounding-box'], { x: 4.5, y: 6, width: 20, height: 10 }, 'car');
    expectClose(
      bySchema(image, 'truck')[0]?.['rotated-bounding-box'],
      { x: 30, y: 8, width: 16, height: 8, rotation: 30 },
      'truck',
    );
    expectClose(
      bySchema(image, 'road')[0]?.polygon,
      [
        [2, 30],
        [30, 30],
        [30, 46],
        [2, 46],
      ],
      'road',
    );
    // The zone's hole, cut into its line by the export, comes back as a hole (the same corners).
    const [field] = bySchema(image, 'field');
    const zones = field?.segmentation.zones as { region: number[][]; holes: number[][][] }[];
    expect(zones).toHaveLength(1);
    const sorted = (ring: number[][]) => ring.map(([x, y]) => [Math.round(x ?? 0), Math.round(y ?? 0)]).sort();
    expect(sorted(zones[0]?.region ?? [])).toEqual(
      sorted([
        [34, 24],
        [62, 24],
        [62, 46],
        [34, 46],
      ]),
    );
    expect(zones[0]?.holes.map(sorted)).toEqual([
      sorted([
        [40, 30],
        [50, 30],
        [50, 40],
        [40, 40],
      ]),
    ]);
  });
});
