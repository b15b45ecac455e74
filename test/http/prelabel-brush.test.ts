import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { uploadBrushLayer } from '../helpers/brush-upload.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * POST /import/labels with a brush layer per asset (`brushDataUrl` beside `objects`, as the
 * original's client sends it): checked as POST /annotate checks it, against each asset's own
 * size; a bad link anywhere refuses the whole request naming the item, nothing written.
 */

const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'], autoForward: false },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Complete'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];
const ONTOLOGY = {
  tools: [{ schemaId: 'grass', title: 'Grass', tool: 'brush', color: '#00ff00' }],
  classifications: [],
};

function layer(width: number, height: number, columns: number): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < columns; x++) png.data.set([0, 255, 0, 255], (y * width + x) * 4);
  return PNG.sync.write(png);
}

const pathOf = (url: string) => new URL(url).pathname;

describe.each(ENGINES)('brush layers on pre-labels on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let assets: { _id: string; externalId: string; taskId: string }[];

  const send = (jsonContent: unknown) =>
    t.call('POST', '/v2/import/labels', { body: { project: projectId, jsonContent } });
  const upload = (taskId: string, body: Buffer) => uploadBrushLayer(t, taskId, body);
  const task = async (i: number) => (await t.call('GET', `/v2/task/${assets[i]?.taskId}`)).json().data.task;
  const columnsOf = async (link: string) => {
    const png = PNG.sync.read((await t.app.inject({ method: 'GET', url: pathOf(link) })).rawPayload);
    let n = 0;
    for (let x = 0; x < png.width; x++) if (png.data[x * 4 + 3] === 255) n++;
    return { width: png.width, height: png.height, columns: n };
  };

  beforeAll(async () => {
    t = await makeTestApp(engine);
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Brush pre-labels' } })).json().data.project._id;
    const upd = await t.call('POST', `/v2/project/${projectId}`, {
      body: { stages: STAGES, categorySchema: ONTOLOGY },
    });
    expect(upd.statusCode, upd.body).toBe(200);
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: {
        assets: [
          { data: 'https://cdn.example.com/a.png', metadata: { width: 30, height: 20 } },
          { data: 'https://cdn.example.com/b.png', metadata: { width: 40, height: 10 } },
        ],
      },
    });
    assets = res.json().data.assets;
  });
  afterAll(() => t.close());

  it('stores each asset its own layer, checked against its own size, and answers fresh links of it', async () => {
    const a = await upload(assets[0]?.taskId as string, layer(30, 20, 3));
    const b = await upload(assets[1]?.taskId as string, layer(40, 10, 7));
    const res = await send([
      { externalId: 'a.png', objects: [], brushDataUrl: a },
      { assetId: assets[1]?._id, objects: [], brushDataUrl: b },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.imported).toBe(2);
    const [ta, tb] = [await task(0), await task(1)];
    expect(ta.isPreLabeled).toBe(true);
    expect(await columnsOf(ta.brushDataUrl)).toEqual({ width: 30, height: 20, columns: 3 });
    expect(await columnsOf(tb.brushDataUrl)).toEqual({ width: 40, height: 10, columns: 7 });

    // As a JSON string too, and "" removes a layer; an item without the field keeps it.
    const again = await send(
      JSON.stringify([
        { externalId: 'a.png', objects: [], brushDataUrl: '' },
        { externalId: 'b.png', objects: [] },
      ]),
    );
    expect(again.statusCode, again.body).toBe(200);
    expect((await task(0)).brushDataUrl).toBeNull();
    expect(await columnsOf((await task(1)).brushDataUrl)).toEqual({ width: 40, height: 10, columns: 7 });
  });

  it('refuses the whole request naming each bad link, and writes nothing', async () => {
    const before = [await task(0), await task(1)];
    // Good for a, of b's size; a text file of the project; another server's image.
    const good = await upload(assets[0]?.taskId as string, layer(30, 20, 5));
    const wrongSize = await upload(assets[1]?.taskId as string, layer(40, 10, 1));
    const { uploadUrl, readUrl } = (
      await t.call('GET', `/v2/getUploadUrl?project=${projectId}&name=x.png&type=brushes`)
    ).json().data;
    await t.app.inject({ method: 'PUT', url: pathOf(uploadUrl), payload: 'not a png' });

    const res = await send([
      { externalId: 'a.png', objects: [], brushDataUrl: good },
      { externalId: 'a.png', objects: [], brushDataUrl: wrongSize },
      { externalId: 'b.png', objects: [], brushDataUrl: readUrl },
      { externalId: 'b.png', objects: [], brushDataUrl: 'https://cdn.example.com/brush.png' },
      { externalId: 'b.png', objects: [], brushDataUrl: 7 },
    ]);
    expect(res.statusCode, res.body).toBe(400);
    const errors = res.json().errors as { field: string; message: string }[];
    expect(errors).toEqual([{ field: 'jsonContent[4].brushDataUrl', message: 'must be a string' }]);
    // With the type fixed, the links themselves are checked.
    const res2 = await send([
      { externalId: 'a.png', objects: [], brushDataUrl: good },
      { externalId: 'a.png', objects: [], brushDataUrl: wrongSize },
      { externalId: 'b.png', objects: [], brushDataUrl: readUrl },
      { externalId: 'b.png', objects: [], brushDataUrl: 'https://cdn.example.com/brush.png' },
    ]);
    expect(res2.statusCode, res2.body).toBe(400);
    expect(res2.json().errors).toEqual([
      { field: 'jsonContent[1].brushDataUrl', message: expect.stringMatching(/40x10 PNG.*30x20/) },
      { field: 'jsonContent[2].brushDataUrl', message: expect.stringMatching(/not a PNG/) },
      { field: 'jsonContent[3].brushDataUrl', message: expect.stringMatching(/file store/) },
    ]);
    const after = [await task(0), await task(1)];
    expect(after.map((x) => [x.brushDataUrl === null, x.updatedAt])).toEqual(
      before.map((x) => [x.brushDataUrl === null, x.updatedAt]),
    );
  });
});
