import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { H, ONTOLOGY, W } from '../helpers/dataset-fixture.js';
import { pythonZip, START_STAGES } from '../helpers/label-files.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Label files read as they are parsed: COCO with its categories last and an image's annotations
 * met twice, CVAT XML refused with its line, and the limits: a YOLO label file of a million
 * lines and a COCO image of more objects than one image may hold are refused with a 400 naming
 * `file`, with nothing written.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const box = (id: number, imageId: number, x: number) => ({
  id,
  image_id: imageId,
  category_id: 1,
  bbox: [x, 2, 4, 4],
  area: 16,
  iscrowd: 0,
});

describe.each(ENGINES)('label imports read as they are parsed, within limits, on %s', (engine) => {
  let t: TestApp;
  let pid: string;
  let tasks: Record<string, string>;
  const send = (format: string, payload: string | Buffer) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/project/${pid}/import/labels?format=${format}`,
      headers: { apikey: t.ownerKey, 'content-type': 'application/octet-stream' },
      payload,
    });
  const refused = async (format: string, payload: string | Buffer, message: RegExp) => {
    const res = await send(format, payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors[0].field).toBe('file');
    expect(res.json().message).toMatch(message);
  };
  const answer = async (name: string) => (await t.call('GET', `/v2/task/${tasks[name]}`)).json().data.task as Json;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Streams' } })).json().data.project._id as string;
    await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY, stages: START_STAGES } });
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: ['a.jpg', 'b.jpg'].map((name) => ({
          data: `https://cdn.example.com/${name}`,
          externalId: name,
          metadata: { width: W, height: H },
        })),
      },
    });
    const [a, b] = (res.json().data.assets as { taskId: string }[]).map((x) => x.taskId);
    tasks = { a: a as string, b: b as string };
  });
  afterAll(() => t.close());

  it('reads COCO with categories last and an image met twice into one pre-label per task', async () => {
    const coco = {
      images: [
        { id: 1, file_name: 'a.jpg', width: W, height: H },
        { id: 2, file_name: 'b.jpg', width: W, height: H },
      ],
      annotations: [box(1, 1, 1), box(2, 2, 10), box(3, 1, 20)],
      categories: [{ id: 1, name: 'Car' }],
    };
    const res = await send('coco', JSON.stringify(coco));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.report).toMatchObject({ images: 2, tasks: 2, objects: 3, skippedImages: 0 });
    const boxes = (name: string) =>
      answer(name).then((task) => task.answer.tools.map((o: Json) => o['bounding-box'].x));
    expect(await boxes('a')).toEqual([1, 20]);
    expect(await boxes('b')).toEqual([10]);
  });

  it('refuses a YOLO label file of a million lines, early, with nothing written', async () => {
    const before = await answer('b');
    const zip = pythonZip(
      "z.writestr('data.yaml', 'names: [Car]')\nz.writestr('labels/b.txt', '0 0.5 0.5 0.1 0.1\\n' * 1_000_000)",
      true,
    );
    await refused('yolo', zip, /"labels\/b.txt" holds more than 100,000 objects/);
    expect((await answer('b')).answer).toEqual(before.answer);
  });

  it('refuses a COCO image holding more objects than an image may, with nothing written', async () => {
    const before = await answer('a');
    const annotations = Array.from({ length: 100_001 }, (_, i) => box(i + 1, 1, i % 50));
    const coco = {
      images: [{ id: 1, file_name: 'a.jpg', width: W, height: H }],
      annotations,
      categories: [{ id: 1, name: 'Car' }],
    };
    await refused('coco', JSON.stringify(coco), /"a.jpg" holds more than 100,000 objects/);
    expect((await answer('a')).answer).toEqual(before.answer);
  });

  it('refuses malformed JSON and CVAT XML midway, naming where, with nothing written', async () => {
    const before = await answer('a');
    const good = JSON.stringify({ images: [{ id: 1, file_name: 'a.jpg' }], categories: [{ id: 1, name: 'Car' }] });
    await refused(
      'coco',
      `${good.slice(0, -1)}, "annotations": [${JSON.stringify(box(1, 1, 3))}, {"id": }]}`,
      /is not valid JSON/,
    );
    const cvat =
      '<annotations><image id="0" name="a.jpg" width="64" height="48"><box label="Car" xtl="1" ytl="1" xbr="5" ybr="5"/></image>\n<image id="1" name="b.jpg"><box label="Car"></image></annotations>';
    await refused('cvat', cvat, /not well-formed XML \(line 2:/);
    await refused('cvat', '<dataset><image name="a.jpg"/></dataset>', /not CVAT XML/);
    await refused('labelstudio', '{"tasks": []}', /JSON list of tasks/);
    expect((await answer('a')).answer).toEqual(before.answer);
  });
});
