import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { download, listening, unzip } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Exports of video answers: the stored keyframes and stop entries expanded to every frame each
 * track is shown on (boxes moving linearly in between, frame-specific answers holding until the
 * next), or kept as stored with includeOnlyKeyFrames=true. Paged assets keep their entries.
 */

const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Complete'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];
const ONTOLOGY = {
  tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box' }],
  classifications: [
    {
      schemaId: 'light',
      title: 'Light',
      tool: 'radio',
      frameSpecific: true,
      options: [
        { schemaId: 'red', value: 'Red' },
        { schemaId: 'green', value: 'Green' },
      ],
    },
  ],
};
const box = (x: number, width = 20) => ({ x, y: 10, width, height: 20 });
const car = (page: number, b: object, extra: object = {}) => ({
  schemaId: 'car',
  objectId: 'c1',
  page,
  'bounding-box': b,
  ...extra,
});
const KEYFRAMES = [
  car(0, box(0)),
  car(30, box(60, 50)),
  car(45, box(90), { interpolationStopped: true }),
  car(50, box(100)),
];
const LIGHTS = [
  { schemaId: 'light', answer: 'red', page: 0 },
  { schemaId: 'light', answer: 'green', page: 40 },
];

type Entry = Record<string, unknown> & { page?: number };
type Item = { externalId: string; task: { tools: Entry[]; classifications: Entry[] } };

describe.each(ENGINES)('video exports on %s', (engine) => {
  let t: TestApp;
  let base: string;
  let pid: string;
  const tasks: Record<string, string> = {};

  const items = async (query: string): Promise<Record<string, Item>> => {
    const res = await t.call('GET', `/v2/export?project=${pid}&${query}`);
    expect(res.statusCode, res.body).toBe(200);
    const got = await download(res.json().data.exportPath as string, base);
    const [entry] = await unzip(got.body);
    const text = entry?.text ?? '';
    const list = (
      query.includes('ndjson')
        ? text
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l))
        : JSON.parse(text)
    ) as Item[];
    return Object.fromEntries(list.map((i) => [i.externalId, i]));
  };

  beforeAll(async () => {
    t = await makeTestApp(engine);
    base = await listening(t.app);
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Street clips' } })).json().data.project._id;
    await t.call('POST', `/v2/project/${pid}`, { body: { stages: STAGES, categorySchema: ONTOLOGY } });
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: [
          { data: 'https://cdn.example.com/clip.mp4', externalId: 'clip', metadata: { frameTotal: 60, frameRate: 30 } },
          { data: 'https://cdn.example.com/scan.tiff', externalId: 'scan', metadata: { pageTotal: 3 } },
          { data: 'https://cdn.example.com/raw.mp4', externalId: 'raw' },
          { data: 'https://cdn.example.com/still.jpg', externalId: 'still' },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    for (const a of res.json().data.assets) tasks[a.externalId] = a.taskId;
    const answers: Record<string, object> = {
      clip: { tools: KEYFRAMES, classifications: LIGHTS },
      scan: { tools: [car(0, box(0)), car(2, box(40))] },
      raw: { tools: [car(0, box(0)), car(3, box(30))] },
      still: { tools: [{ schemaId: 'car', objectId: 's1', 'bounding-box': box(5) }] },
    };
    for (const [name, answer] of Object.entries(answers)) {
      const put = await t.call('POST', `/v2/annotate/${tasks[name]}`, {
        body: { answer: { tools: [], classifications: [], relations: [], ...answer } },
      });
      expect(put.statusCode, put.body).toBe(200);
    }
  });
  afterAll(() => t.close());

  it('expands a box track to every frame it is shown on, halfway between keyframes on page 15 (frame 16 of the editor)', async () => {
    const { clip } = await items('format=json');
    const tools = clip!.task.tools;
    const pages = tools.map((e) => e.page);
    // Frames 0-45 (45 is the stop entry), hidden 46-49, shown again 50-59.
    expect(pages).toEqual([
      ...Array.from({ length: 46 }, (_, i) => i),
      ...Array.from({ length: 10 }, (_, i) => 50 + i),
    ]);
    expect(tools[15]).toEqual({ ...car(15, box(30, 35)), title: 'Car', interpolated: true });
    // Frame 16 (the editor's 17th): 16/30 of the way from x 0 to 60.
    expect(tools[16]!['bounding-box']).toEqual({ x: 32, y: 10, width: 20 + (30 * 16) / 30, height: 20 });
    expect(tools[30]).toEqual({ ...car(30, box(60, 50)), title: 'Car' });
    expect(tools[45]).toMatchObject({ page: 45, interpolationStopped: true });
    expect(tools[46]).toEqual({ ...car(50, box(100)), title: 'Car' });
    expect(tools[55]).toEqual({ ...car(59, box(100)), title: 'Car', interpolated: true });
  });

  it('expands frame-specific answers until the next one, readable', async () => {
    const { clip } = await items('format=json');
    const lights = clip!.task.classifications;
    expect(lights.map((c) => c.page)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(lights[39]).toMatchObject({
      schemaId: 'light',
      title: 'Light',
      answer: 'Red',
      page: 39,
      interpolated: true,
    });
    expect(lights[40]).toMatchObject({ answer: 'Green', page: 40 });
    expect(lights[40]).not.toHaveProperty('interpolated');
  });

  it('keeps keyframes and stop entries only with includeOnlyKeyFrames=true, in ndjson too', async () => {
    for (const query of ['format=json&includeOnlyKeyFrames=true', 'format=ndjson&includeOnlyKeyFrames=True']) {
      const { clip } = await items(query);
      expect(clip!.task.tools).toEqual(KEYFRAMES.map((k) => ({ ...k, title: 'Car' })));
      expect(clip!.task.classifications.map((c) => c.page)).toEqual([0, 40]);
    }
    const { clip } = await items('format=ndjson&includeOnlyKeyFrames=false');
    expect(clip!.task.tools).toHaveLength(56);
  });

  it('expands a video without a frame count to its last keyframe; pages and still images stay as stored', async () => {
    const got = await items('format=json');
    expect(got.raw!.task.tools.map((e) => [e.page, (e['bounding-box'] as { x: number }).x])).toEqual([
      [0, 0],
      [1, 10],
      [2, 20],
      [3, 30],
    ]);
    expect(got.scan!.task.tools.map((e) => e.page)).toEqual([0, 2]);
    expect(got.still!.task.tools).toHaveLength(1);
  });

  it('gives dataset formats an image for every frame an object is shown on, its box moved', async () => {
    const zip = async (query: string) => {
      const res = await t.call('GET', `/v2/export?project=${pid}&${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return unzip((await download(res.json().data.exportPath as string, base)).body);
    };
    type Coco = {
      images: { id: number; video_id?: string; frame_index?: number; file_name: string }[];
      annotations: { image_id: number; bbox: number[] }[];
    };
    const cocoOf = async (query: string) =>
      JSON.parse((await zip(query)).find((e) => e.name === 'annotations/instances.json')!.text) as Coco;
    const coco = await cocoOf('format=coco');
    const frames = (name: string) =>
      coco.images.filter((i) => i.file_name.startsWith(`${name}/`)).map((i) => i.frame_index);
    expect(frames('clip')).toEqual([
      ...Array.from({ length: 45 }, (_, i) => i),
      ...Array.from({ length: 10 }, (_, i) => 50 + i),
    ]);
    expect(frames('raw')).toEqual([0, 1, 2, 3]);
    expect(frames('scan')).toEqual([0, 2]);
    const fifteen = coco.images.find((i) => i.file_name === 'clip/frame_000015.jpg')!;
    expect(coco.annotations.filter((a) => a.image_id === fifteen.id).map((a) => a.bbox)).toEqual([[30, 10, 35, 20]]);

    const keyOnly = await cocoOf('format=coco&includeOnlyKeyFrames=true');
    expect(keyOnly.images.filter((i) => i.file_name.startsWith('clip/')).map((i) => i.frame_index)).toEqual([
      0, 30, 50,
    ]);

    const yolo = (await zip('format=yolo')).filter((e) => /^labels\/clip_frame_\d+\.txt$/.test(e.name));
    expect(yolo).toHaveLength(55);
  });

  it('refuses an includeOnlyKeyFrames that is not true or false, naming it', async () => {
    const res = await t.call('GET', `/v2/export?project=${pid}&includeOnlyKeyFrames=sometimes`);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ field: 'includeOnlyKeyFrames' });
  });
});
