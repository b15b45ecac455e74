import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { H, ONTOLOGY, W } from '../helpers/dataset-fixture.js';
import { addRoleUsers, type RoleUsers } from '../helpers/roles.js';
import { pythonZip, START_STAGES } from '../helpers/label-files.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Label imports refuse bad files with a 400 naming `file` and a clear message, never a 500 and
 * never half an import: malformed JSON and XML, XML declaring entities, zips whose paths climb
 * out or that expand like bombs, categories matching nothing; boxes outside the image are
 * clipped or skipped and reported. Label Studio's export (rectangles, polygons, keypoints,
 * brush RLE, choices, NER) is read.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Label Studio's brush RLE of an RGBA image: 8-bit words, runs of one value only. */
function labelStudioRle(rgba: Uint8Array): number[] {
  const bits: number[] = [];
  const put = (v: number, n: number) => {
    for (let i = n - 1; i >= 0; i--) bits.push(Math.floor(v / 2 ** i) % 2);
  };
  put(rgba.length, 32);
  put(7, 5);
  for (let k = 0; k < 4; k++) put(15, 4);
  for (let i = 0; i < rgba.length;) {
    let j = i;
    while (j < rgba.length && rgba[j] === rgba[i] && j - i < 65_536) j++;
    put(1, 1);
    put(0, 2);
    put(j - i - 1, 16);
    put(rgba[i] as number, 8);
    i = j;
  }
  while (bits.length % 8) bits.push(0);
  return Array.from({ length: bits.length / 8 }, (_, b) => parseInt(bits.slice(b * 8, b * 8 + 8).join(''), 2));
}

const COCO = (categories: string[], bbox: number[]) => ({
  images: [{ id: 1, file_name: 'photos/street.jpg', width: W, height: H }],
  categories: categories.map((name, i) => ({ id: i + 1, name })),
  annotations: categories.map((_, i) => ({
    id: i + 1,
    image_id: 1,
    category_id: i + 1,
    bbox,
    area: 1,
    iscrowd: 0,
    segmentation: [],
  })),
});

describe.each(ENGINES)('label import refusals and Label Studio on %s', (engine) => {
  let t: TestApp;
  let pid: string;
  let taskId: string;
  let users: RoleUsers;
  const send = (format: string, payload: string | Buffer, key = t.ownerKey) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/project/${pid}/import/labels?format=${format}`,
      headers: { apikey: key, 'content-type': 'application/octet-stream' },
      payload,
    });
  const refused = async (format: string, payload: string | Buffer, message: RegExp) => {
    const res = await send(format, payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors[0].field).toBe('file');
    expect(res.json().message).toMatch(message);
  };
  const answer = async () => (await t.call('GET', `/v2/task/${taskId}`)).json().data.task as Json;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Imports' } })).json().data.project._id as string;
    await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY, stages: START_STAGES } });
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/street.jpg', metadata: { width: W, height: H } }] },
    });
    taskId = res.json().data.assets[0].taskId as string;
    users = await addRoleUsers(t, pid, `imports-${engine}`);
  });
  afterAll(() => t.close());

  it('refuses malformed JSON and XML, XML with entities, climbing zips and zip bombs, with nothing written', async () => {
    await refused('coco', '{"images": [', /is not valid JSON/);
    await refused('labelstudio', '{"not": "a list"}', /JSON list of tasks/);
    await refused('voc', '<annotation><object></annotation>', /not well-formed XML \(line 1/);
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><annotation>&lol2;</annotation>';
    await refused('voc', laughs, /declares a document type or entities/);
    await refused('cvat', '<!DOCTYPE a SYSTEM "http://127.0.0.1:1/x.dtd"><annotations/>', /document type/);
    await refused(
      'yolo',
      pythonZip("z.writestr('../../etc/data.yaml', 'names: [Car]')"),
      /zip is refused: invalid relative path/,
    );
    await refused('coco', pythonZip("z.writestr('annotations/instances.json', b'0' * 50_000_000)"), /zip bomb/);
    await refused('coco', Buffer.from('PK\u0003\u0004 not really a zip'), /the zip cannot be read/);
    expect((await answer()).isPreLabeled).toBe(false);
  });

  it('reports categories matching nothing, refusing a file where nothing matches', async () => {
    await refused('coco', JSON.stringify(COCO(['Bicycle'], [1, 1, 5, 5])), /categories matching no tool: Bicycle/);
    const res = await send('coco', JSON.stringify(COCO(['Car', 'Bicycle'], [1, 1, 5, 5])));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.report).toMatchObject({
      tasks: 1,
      objects: 1,
      unmatchedCategories: [{ name: 'Bicycle', objects: 1 }],
    });
  });

  it('clips boxes reaching out of the image and skips those entirely outside, reporting both', async () => {
    const res = await send('coco', JSON.stringify(COCO(['Car', 'Car'], [-10, 40, 30, 20])));
    expect(res.json().data.report).toMatchObject({ clipped: 2 });
    expect((await answer()).answer.tools[0]['bounding-box']).toEqual({ x: 0, y: 40, width: 20, height: 8 });
    const outside = await send(
      'coco',
      JSON.stringify({ ...COCO(['Car'], [100, 100, 5, 5]), categories: [{ id: 1, name: 'car' }] }),
    );
    expect(outside.statusCode).toBe(400);
    expect(outside.json().message).toMatch(/boxes entirely outside|nothing of the file/);
  });

  it('needs the import permission, and imports nothing for a Reviewer', async () => {
    const res = await send('coco', JSON.stringify(COCO(['Car'], [1, 1, 5, 5])), users.key.Reviewer);
    expect(res.statusCode).toBe(403);
    const bad = await t.app.inject({
      method: 'POST',
      url: `/v2/project/${pid}/import/labels?format=psd`,
      headers: { apikey: t.ownerKey },
      payload: 'x',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('format');
  });

  it('reads a Label Studio export: rotated rectangles, polygons, keypoints, brush RLE, choices and NER', async () => {
    const rgba = new Uint8Array(W * H * 4);
    for (let p = 0; p < W * 2; p++) rgba.set([0, 255, 0, 255], p * 4);
    const size = { original_width: W, original_height: H };
    const result = [
      {
        id: 'r1',
        type: 'rectanglelabels',
        from_name: 'label',
        ...size,
        value: { x: 25, y: 25, width: 25, height: 25, rotation: 90, rectanglelabels: ['Car'] },
      },
      {
        id: 'p1',
        type: 'polygonlabels',
        ...size,
        value: {
          points: [
            [0, 50],
            [50, 50],
            [50, 100],
          ],
          polygonlabels: ['Road'],
        },
      },
      { id: 'k1', type: 'keypointlabels', ...size, value: { x: 50, y: 50, keypointlabels: ['Sign'] } },
      {
        id: 'b1',
        type: 'brushlabels',
        ...size,
        value: { format: 'rle', rle: labelStudioRle(rgba), brushlabels: ['Sky'] },
      },
      { id: 'n1', type: 'labels', value: { start: 2, end: 5, labels: ['Span'] } },
      { type: 'choices', from_name: 'Weather', value: { choices: ['Sunny'] } },
    ];
    const doc = [{ id: 7, data: { image: '/data/upload/1/1a2b3c4d-street.jpg' }, annotations: [{ result }] }];
    const res = await send('labelstudio', JSON.stringify(doc));
    expect(res.statusCode, res.body).toBe(200);
    const task = await answer();
    const tool = (id: string) => (task.answer.tools as Json[]).find((o) => o.schemaId === id) as Json;
    // Label Studio turns the rectangle (16, 12, 16 x 12) about its top-left corner: a quarter
    // turn covers x 4..16, y 12..28; the car tool is an axis-aligned box, so that is its box.
    expect(tool('car')['bounding-box']).toEqual({ x: 4, y: 12, width: 12, height: 16 });
    expect(task.answer.tools.map((o: Json) => o.schemaId).sort()).toEqual(['car', 'road', 'sign', 'span']);
    expect(tool('road').polygon).toEqual([
      [0, 24],
      [32, 24],
      [32, 48],
    ]);
    expect(tool('sign').point).toEqual([32, 24]);
    expect(tool('span').ner).toEqual({ start: 2, end: 5 });
    expect(task.answer.classifications).toEqual([{ schemaId: 'weather', answer: 'sun' }]);
    expect(task.brushDataUrl).toMatch(/\/files\//);
  });
});
