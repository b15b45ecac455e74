import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { manualClock, unzip } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';
import { square } from '../helpers/rings.js';

/*
 * The mask side of the JSON export and of task reads: segmentation zones only with
 * includeSegmentationPoints, `masks` links with includeMask that draw each object alone with no
 * API key until they expire, and brush links signed afresh with a short, stated life wherever a
 * client sees them. Every PNG is decoded and its pixels counted.
 */

const W = 60;
const H = 40;
const START = '2026-03-01T10:00:00.000Z';
const startSeconds = Date.parse(START) / 1000;

const ONTOLOGY = {
  tools: [
    { schemaId: 'lake', title: 'Lake', tool: 'segmentation', color: '#0000ff' },
    { schemaId: 'road', title: 'Road', tool: 'polygon', color: '#00ff00' },
    { schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000' },
    { schemaId: 'grass', title: 'Grass', tool: 'brush', color: '#00ff00' },
  ],
  classifications: [],
};

const TOOLS = [
  {
    schemaId: 'lake',
    objectId: 'ring',
    segmentation: { zones: [{ region: square(10, 10, 20), holes: [square(15, 15, 5)] }] },
  },
  { schemaId: 'road', objectId: 'strip', polygon: square(40, 0, 10) },
  { schemaId: 'car', objectId: 'box', 'bounding-box': { x: 1, y: 1, width: 5, height: 5 } },
];

/** Grass over columns 0..9 of rows 30..39. */
function brushLayer(): Buffer {
  const png = new PNG({ width: W, height: H });
  for (let y = 30; y < 40; y++) for (let x = 0; x < 10; x++) png.data.set([0, 255, 0, 255], (y * W + x) * 4);
  return PNG.sync.write(png);
}

function opaqueCount(bytes: Buffer): { width: number; height: number; count: number } {
  const png = PNG.sync.read(bytes);
  let count = 0;
  for (let i = 3; i < png.data.length; i += 4) if (png.data[i] === 255) count++;
  return { width: png.width, height: png.height, count };
}

function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

/** The expiry (Unix seconds) a file link of ours carries in its path. */
const fileExpiry = (url: string) => Number(/\/files\/(\d+)\//.exec(url)?.[1]);

type Item = { task: { tools: Record<string, unknown>[]; brushDataUrl: string | null; stageHistory?: unknown[] } };

describe.each(ENGINES)('mask exports and brush links on %s', (engine) => {
  let t: TestApp;
  const clock = manualClock(START);
  let projectId: string;
  let taskId: string;

  const items = async (query: string): Promise<Item[]> => {
    const res = await t.call('GET', `/v2/exportV3?project=${projectId}&${query}`);
    expect(res.statusCode, res.body).toBe(200);
    const zip = await t.app.inject({ method: 'GET', url: pathOf(res.json().data.exportPath as string) });
    expect(zip.statusCode).toBe(200);
    return JSON.parse((await unzip(zip.rawPayload))[0]?.text ?? 'null') as Item[];
  };
  const get = (url: string) => t.app.inject({ method: 'GET', url: pathOf(url) });

  beforeAll(async () => {
    t = await makeTestApp(engine, { clock });
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Masks' } })).json().data.project._id;
    const set = await t.call('POST', `/v2/project/${projectId}`, { body: { categorySchema: ONTOLOGY } });
    expect(set.statusCode, set.body).toBe(200);
    const imported = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/lake.png', metadata: { width: W, height: H } }] },
    });
    taskId = imported.json().data.assets[0].taskId;
    const up = await t.app.inject({
      method: 'POST',
      url: `/v2/task/${taskId}/brush`,
      headers: { apikey: t.ownerKey, 'content-type': 'image/png' },
      payload: brushLayer(),
    });
    expect(up.statusCode, up.body).toBe(200);
    const saved = await t.call('POST', `/v2/annotate/${taskId}`, {
      body: { answer: { tools: TOOLS }, brushDataUrl: up.json().data.brushDataUrl },
    });
    expect(saved.statusCode, saved.body).toBe(200);
  });
  afterAll(() => t.close());

  it('exports segmentation zones only with includeSegmentationPoints, as the original does', async () => {
    const [plain] = await items('format=json');
    const ring = plain?.task.tools.find((o) => o.objectId === 'ring');
    expect(ring).toMatchObject({ schemaId: 'lake', title: 'Lake' });
    expect(ring).not.toHaveProperty('segmentation');
    expect(ring).not.toHaveProperty('masks');
    // Other shapes are untouched.
    expect(plain?.task.tools.find((o) => o.objectId === 'strip')?.polygon).toEqual(square(40, 0, 10));

    const [withZones] = await items('format=json&includeSegmentationPoints=true');
    expect(withZones?.task.tools.find((o) => o.objectId === 'ring')?.segmentation).toEqual(TOOLS[0]?.segmentation);
    // The stored answer keeps its zones whatever an export leaves out.
    const task = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task;
    expect(task.answer.tools[0].segmentation).toEqual(TOOLS[0]?.segmentation);
  });

  it('gives each segmentation and polygon object a mask link that draws it alone, with no API key, for a day', async () => {
    const [item] = await items('includeMask=True');
    const byId = new Map(item?.task.tools.map((o) => [o.objectId, o]));
    expect(byId.get('box')).not.toHaveProperty('masks');
    const ringLinks = byId.get('ring')?.masks as string[];
    const stripLinks = byId.get('strip')?.masks as string[];
    expect(ringLinks).toHaveLength(1);
    const ringLink = new URL(ringLinks[0] as string);
    expect(ringLink.origin + ringLink.pathname).toBe('http://annotary.test/v2/mask');
    expect(ringLink.searchParams.get('annotation')).toBe('ring');
    expect(ringLink.searchParams.get('task')).toBe(taskId);
    expect(Number(ringLink.searchParams.get('expires'))).toBe(startSeconds + 24 * 3600);

    // No API key: the link is the credential. 20x20 less the 5x5 hole; the 10x10 strip.
    const ring = await get(ringLinks[0] as string);
    expect(ring.statusCode, ring.body).toBe(200);
    expect(ring.headers['content-type']).toBe('image/png');
    expect(opaqueCount(ring.rawPayload)).toEqual({ width: W, height: H, count: 400 - 25 });
    expect(opaqueCount((await get(stripLinks[0] as string)).rawPayload)).toEqual({ width: W, height: H, count: 100 });

    // Tampered with: another object, another task, a later expiry, a changed signature.
    const tampered = (name: string, value: string) => {
      const u = new URL(ringLink);
      u.searchParams.set(name, value);
      return u.toString();
    };
    for (const bad of [
      tampered('annotation', 'strip'),
      tampered('task', 'f'.repeat(24)),
      tampered('expires', String(startSeconds + 48 * 3600)),
      tampered('signature', 'A'.repeat(43)),
    ]) {
      const res = await get(bad);
      expect(res.statusCode, bad).toBe(403);
      expect(res.json().message).toMatch(/signature of this mask link is not valid/);
    }
    // Without a signature the route wants a key, as before.
    const bare = await t.app.inject({ method: 'GET', url: `/v2/mask?annotation=ring&task=${taskId}` });
    expect(bare.statusCode).toBe(401);

    clock.advance(24 * 3600 * 1000);
    try {
      const late = await get(ringLinks[0] as string);
      expect(late.statusCode).toBe(403);
      expect(late.json().message).toMatch(/expired/);
    } finally {
      clock.set(START);
    }
  });

  it('answers brush links signed afresh: an hour on task reads, a day in exports, the same pixels', async () => {
    const stored = (
      await t.store.db.selectFrom('tasks').select('brush_data_url').where('id', '=', taskId).executeTakeFirstOrThrow()
    ).brush_data_url as string;
    // What the task keeps lives ten years; no client sees it.
    expect(fileExpiry(stored)).toBeGreaterThan(startSeconds + 365 * 24 * 3600);

    const read = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task.brushDataUrl as string;
    expect(fileExpiry(read)).toBe(startSeconds + 3600);
    expect(read).not.toBe(stored);
    const listed = (await t.call('GET', `/v2/project/${projectId}/tasks`)).json().data.tasks[0].brushDataUrl as string;
    expect(fileExpiry(listed)).toBe(startSeconds + 3600);

    const [item] = await items('format=json');
    const exported = item?.task.brushDataUrl as string;
    expect(fileExpiry(exported)).toBe(startSeconds + 24 * 3600);

    for (const link of [read, exported]) {
      const png = await get(link);
      expect(png.statusCode).toBe(200);
      expect(opaqueCount(png.rawPayload)).toEqual({ width: W, height: H, count: 100 });
    }
    // A task read's link stops working after its hour; the export's lasts the day.
    clock.advance(3601 * 1000);
    try {
      expect((await get(read)).statusCode).toBe(403);
      expect((await get(exported)).statusCode).toBe(200);
      // A fresh read hands out a working link again, and saving it back keeps the layer.
      const again = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task.brushDataUrl as string;
      expect((await get(again)).statusCode).toBe(200);
      const resaved = await t.call('POST', `/v2/annotate/${taskId}`, { body: { brushDataUrl: read } });
      expect(resaved.statusCode, resaved.body).toBe(200);
      expect(opaqueCount((await get(resaved.json().data.task.brushDataUrl as string)).rawPayload).count).toBe(100);
    } finally {
      clock.set(START);
    }
  });
});
