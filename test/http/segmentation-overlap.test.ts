import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { square, zonesArea } from '../helpers/rings.js';

/*
 * The project setting segmentationOverlap through POST /annotate: segmentation objects of one
 * image that overlap are repaired by the rule (later-wins cuts the earlier object, earlier-wins
 * the later one), objects on different frames are left alone, an object left with nothing is
 * refused naming it, and `allow` keeps the answer as sent.
 */

const ONTOLOGY = {
  tools: [
    { schemaId: 'lake', title: 'Lake', tool: 'segmentation', color: '#0000ff' },
    { schemaId: 'field', title: 'Field', tool: 'segmentation', color: '#00ff00' },
  ],
  classifications: [],
};

type Zones = { region: number[][]; holes: number[][][] }[];
const seg = (objectId: string, schemaId: string, region: number[][], extra: Record<string, unknown> = {}) => ({
  objectId,
  schemaId,
  segmentation: { zones: [{ region, holes: [] }] },
  ...extra,
});

describe.each(ENGINES)('segmentationOverlap on %s', (engine) => {
  let t: TestApp;
  let pid: string;
  let taskId: string;
  const setRule = async (rule: unknown) =>
    t.call('POST', `/v2/project/${pid}`, { body: { segmentationOverlap: rule } });
  const annotate = (tools: unknown[]) => t.call('POST', `/v2/annotate/${taskId}`, { body: { answer: { tools } } });
  const saved = async () =>
    (await t.call('GET', `/v2/task/${taskId}`)).json().data.task.answer.tools as {
      objectId: string;
      segmentation: { zones: Zones };
    }[];
  const areaOf = (tools: Awaited<ReturnType<typeof saved>>, id: string) =>
    zonesArea(tools.find((o) => o.objectId === id)!.segmentation.zones);

  beforeAll(async () => {
    t = await makeTestApp(engine);
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Fields' } })).json().data.project._id;
    expect((await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY } })).statusCode).toBe(200);
    const imported = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/f.png', metadata: { width: 300, height: 300 } }] },
    });
    taskId = imported.json().data.assets[0].taskId;
  });
  afterAll(() => t.close());

  it('answers allow by default and keeps overlapping objects as sent', async () => {
    const project = (await t.call('GET', `/v2/project/${pid}`)).json().data.project;
    expect(project.segmentationOverlap).toBe('allow');
    const res = await annotate([seg('a', 'lake', square(0, 0, 100)), seg('b', 'field', square(50, 50, 100))]);
    expect(res.statusCode, res.body).toBe(200);
    const tools = await saved();
    expect(areaOf(tools, 'a')).toBe(10000);
    expect(areaOf(tools, 'b')).toBe(10000);
  });

  it('refuses a rule it does not know, naming the field, and keeps the setting', async () => {
    const res = await setRule('last-wins');
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain('segmentationOverlap');
    expect((await t.call('GET', `/v2/project/${pid}`)).json().data.project.segmentationOverlap).toBe('allow');
  });

  it('later-wins: the earlier object loses the shared area, a hole where a later one lies inside it', async () => {
    expect((await setRule('later-wins')).statusCode).toBe(200);
    expect((await t.call('GET', `/v2/project/${pid}`)).json().data.project.segmentationOverlap).toBe('later-wins');
    const res = await annotate([
      seg('a', 'lake', square(0, 0, 100)),
      seg('b', 'field', square(50, 50, 100)),
      seg('c', 'field', square(200, 200, 50)),
      seg('d', 'lake', square(210, 210, 10)),
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const tools = await saved();
    expect(areaOf(tools, 'a')).toBeCloseTo(10000 - 2500, 6);
    expect(areaOf(tools, 'b')).toBe(10000);
    expect(areaOf(tools, 'c')).toBeCloseTo(2500 - 100, 6);
    expect(areaOf(tools, 'd')).toBe(100);
    const c = tools.find((o) => o.objectId === 'c')!.segmentation.zones;
    expect(c).toHaveLength(1);
    expect(c[0]!.holes).toHaveLength(1);
  });

  it('earlier-wins: the later object loses the shared area; objects on other frames are left alone', async () => {
    expect((await setRule('earlier-wins')).statusCode).toBe(200);
    const res = await annotate([
      seg('a', 'lake', square(0, 0, 100)),
      seg('b', 'field', square(50, 50, 100)),
      seg('e', 'field', square(0, 0, 100), { page: 1 }),
    ]);
    // An image answer with a page is kept: the asset declares no frame count.
    expect(res.statusCode, res.body).toBe(200);
    const tools = await saved();
    expect(areaOf(tools, 'a')).toBe(10000);
    expect(areaOf(tools, 'b')).toBeCloseTo(7500, 6);
    expect(areaOf(tools, 'e')).toBe(10000);
  });

  it('refuses an object left with nothing, naming it and the winner, and keeps the saved answer', async () => {
    const before = await saved();
    const res = await annotate([seg('a', 'lake', square(0, 0, 100)), seg('b', 'field', square(10, 10, 50))]);
    expect(res.statusCode).toBe(400);
    const [err] = res.json().errors as { field: string; message: string }[];
    expect(err!.field).toBe('answer.tools[1].segmentation');
    expect(err!.message).toMatch(/answer\.tools\[0\].*earlier-wins/);
    expect(await saved()).toEqual(before);
  });
});
