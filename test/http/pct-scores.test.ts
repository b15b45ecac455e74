import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { importPctTask } from '../helpers/pct-assets.js';
import { ENGINES } from '../helpers/stores.js';
import { consensusWorkflow, submitConsensusRound } from '../helpers/street-scene.js';

/*
 * Consensus and benchmark scores of point-cloud answers, through the API on both engines: cuboids
 * compare by their 3D IoU, tracks expanded to every frame of the sequence (3 frames here) and
 * matched one to one as video tracks are; a pct tool's polygons are not scored. The cuboids are
 * 2 x 2 x 2 m: two of them offset by half a length (1 m) share 4 of 12 m3, IoU 1/3; one turned
 * by 45 degrees about the other's centre shares the octagon 8(sqrt 2 - 1) of their square
 * footprints, IoU 1/sqrt 2.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const frameUrls = [0, 1, 2].map((f) => `https://data.example/scores/00000${f}.pcd`);
const ONTOLOGY = { tools: [{ schemaId: 'car', title: 'Car', tool: 'pct', markingTools: ['cuboid', 'polygon'] }] };

/** A keyframe of cuboid track `id` on `page`: a 2 m cube at (x, 5, 1) turned by `yaw` radians. */
const cube = (id: string, page: number, x: number, yaw = 0) => ({
  objectId: id,
  schemaId: 'car',
  tool: 'pct',
  markingTool: 'cuboid',
  page,
  cuboid: { center: { x, y: 5, z: 1 }, dimensions: { length: 2, width: 2, height: 2 }, yaw },
});
/** A 3D polygon of the car tool on frame 0, far from the cubes. */
const polygon = (id: string, size: number) => ({
  objectId: id,
  schemaId: 'car',
  tool: 'pct',
  markingTool: 'polygon',
  page: 0,
  points: [
    [20, 20],
    [20 + size, 20],
    [20, 20 + size],
  ].map(([x, y]) => ({ x, y, z: 0 })),
});

describe.each(ENGINES)('consensus of point-cloud cuboids on %s', (engine) => {
  let t: TestApp;
  let pid: string;

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    const created = await t.call('POST', '/v2/project', { body: { name: 'Drives', type: 'pct' } });
    expect(created.statusCode, created.body).toBe(201);
    pid = created.json().data.project._id;
    const res = await t.call('POST', `/v2/project/${pid}`, {
      body: { categorySchema: ONTOLOGY, stages: consensusWorkflow({ threshold: 0.8, adjudicationMethod: 'majority' }) },
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => t?.close());

  const round = async (name: string, first: unknown[], second: unknown[]): Promise<Json> =>
    submitConsensusRound(t, pid, await importPctTask(t, pid, frameUrls, name), first, second);

  it('scores cubes offset by half a length 1/3 on every frame, and leaves polygons unscored', async () => {
    // Held from frame 0 to the last; the same polygon in both copies adds no item.
    const task = await round('offset', [cube('a', 0, 0), polygon('p', 4)], [cube('b', 0, 1), polygon('q', 4)]);
    expect(task).toMatchObject({ stage: 'Disputed', consensusScore: 0.333333 });
    // Majority: the polygons are one object (the same shape); cubes at IoU 1/3 are not.
    expect(task.answer.tools).toEqual([expect.objectContaining({ objectId: 'p', markingTool: 'polygon' })]);
  });

  it('scores a cube turned by 45 degrees 1/sqrt 2 and merges the two in adjudication', async () => {
    const task = await round('turned', [cube('a', 0, 0)], [cube('b', 0, 0, Math.PI / 4)]);
    expect(task).toMatchObject({ stage: 'Disputed', consensusScore: 0.707107 });
    expect(task.answer.tools).toEqual([expect.objectContaining({ objectId: 'a', markingTool: 'cuboid' })]);
  });

  it('agrees fully on the same motion set with other keyframes', async () => {
    const task = await round(
      'moving',
      [cube('a', 0, 0), cube('a', 2, 2)],
      [cube('b', 0, 0), cube('b', 1, 1), cube('b', 2, 2)],
    );
    expect(task).toMatchObject({ stage: 'Done', consensusScore: 1 });
  });

  it('scores a held cube against a moving one by the mean over the frames', async () => {
    // Frames 0, 1, 2: offsets 0, 1 and 2 m: IoU 1, 1/3 and 0 (touching), mean 4/9.
    const task = await round('held', [cube('a', 0, 0)], [cube('b', 0, 0), cube('b', 2, 2)]);
    expect(task).toMatchObject({ stage: 'Disputed', consensusScore: 0.444444 });
  });

  it('keeps the per-class agreement of the rounds for the Quality page', async () => {
    const res = await t.call('POST', `/v2/project/${pid}/quality`, { body: {} });
    expect(res.statusCode, res.body).toBe(200);
    const car = (res.json().data.agreement as Json[]).find((a) => a.schemaId === 'car');
    expect(car).toMatchObject({ measure: 'iou', measures: 4 });
    expect(car?.value).toBeCloseTo((1 / 3 + Math.SQRT1_2 + 1 + 4 / 9) / 4, 4);
  });
});

describe.each(ENGINES)('benchmarks of point-cloud cuboids on %s', (engine) => {
  let t: TestApp;
  let pid: string;
  let benchmark: string;
  const people: Record<string, { email: string; key: string }> = {};

  const submitAs = async (who: string, tools: unknown[]): Promise<Json> => {
    const key = people[who]?.key ?? null;
    const next = await t.call('GET', `/v2/project/${pid}/next?stageId=Label`, { key });
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json().data.task._id).toBe(benchmark);
    const res = await t.call('POST', `/v2/annotate/${benchmark}?nextStage=true`, {
      body: { answer: { tools, classifications: [], relations: [] } },
      key,
    });
    expect(res.statusCode, res.body).toBe(200);
    const list = await t.call('GET', `/v2/project/${pid}/benchmarkSubmissions?labeler=${people[who]?.email}`);
    const subs = list.json().data.submissions as Json[];
    expect(subs).toHaveLength(1);
    return subs[0] as Json;
  };

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    const created = await t.call('POST', '/v2/project', { body: { name: 'Drive benchmarks', type: 'pct' } });
    pid = created.json().data.project._id;
    const stages = [
      { id: 'Start', type: 'Start', next: ['Label'] },
      { id: 'Label', type: 'Label', next: ['Done'] },
      { id: 'Done', type: 'Complete' },
    ];
    const set = await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY, stages } });
    expect(set.statusCode, set.body).toBe(200);
    benchmark = await importPctTask(t, pid, frameUrls, 'bench');
    await importPctTask(t, pid, frameUrls, 'other');
    // The reference: a cube moving 2 m over the three frames (keyframes 0 and 2), and a polygon.
    const saved = await t.call('POST', `/v2/annotate/${benchmark}`, {
      body: { answer: { tools: [cube('r', 0, 0), cube('r', 2, 2), polygon('rp', 4)] } },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const marked = await t.call('POST', `/v2/project/${pid}/benchmarks`, { body: { tasks: [benchmark] } });
    expect(marked.statusCode, marked.body).toBe(200);
    const on = await t.call('POST', `/v2/project/${pid}`, { body: { benchmarkEnabled: true, benchmarkRatio: 1 } });
    expect(on.statusCode, on.body).toBe(200);
    for (const who of ['ann', 'bob', 'cat']) {
      const email = `${who}-pct-${engine}@example.com`;
      people[who] = { email, key: await t.addUser(email, 'member') };
      await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [email], role: 'Labeler' } });
    }
  });
  afterAll(() => t?.close());

  it('scores the reference motion set with other keyframes 100, whatever its polygons', async () => {
    const sub = await submitAs('ann', [cube('a', 0, 0), cube('a', 1, 1), cube('a', 2, 2), polygon('ap', 9)]);
    expect(sub.detail).toEqual([
      {
        schemaId: 'car',
        kind: 'object',
        score: 1,
        objects: [{ referenceId: 'r', objectId: 'a', similarity: 1 }],
        extra: 0,
      },
    ]);
    expect(sub.score).toBe(100);
  });

  it('scores a cube held where the reference moves by the mean IoU over the frames', async () => {
    // Offsets 0, 1 and 2 m on frames 0, 1, 2: (1 + 1/3 + 0) / 3 = 4/9.
    const sub = await submitAs('bob', [cube('b', 0, 0)]);
    expect(sub.detail[0].objects).toEqual([{ referenceId: 'r', objectId: 'b', similarity: expect.any(Number) }]);
    expect(sub.detail[0].objects[0].similarity).toBeCloseTo(4 / 9, 12);
    expect(sub.score).toBe(44.444);
  });

  it('scores the reference motion turned by 45 degrees 100 / sqrt 2', async () => {
    const sub = await submitAs('cat', [cube('c', 0, 0, Math.PI / 4), cube('c', 2, 2, Math.PI / 4)]);
    expect(sub.detail[0].objects[0].similarity).toBeCloseTo(Math.SQRT1_2, 12);
    expect(sub.score).toBe(70.711);
  });
});
