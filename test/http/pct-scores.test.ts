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
 * footprints, IoU 1/sqrt 2. Point labels compare point by point: per class the IoU of the points
 * two answers give it, beside the share of the points either labels that both give one class.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const frameUrls = [0, 1, 2].map((f) => `https://data.example/scores/00000${f}.pcd`);
const ONTOLOGY = {
  tools: [
    { schemaId: 'car', title: 'Car', tool: 'pct', markingTools: ['cuboid', 'polygon'] },
    { schemaId: 'road', title: 'Road', tool: 'pct', markingTools: ['polygon'] },
  ],
};

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

interface BenchmarkProject {
  pid: string;
  benchmark: string;
  people: Record<string, { email: string; key: string }>;
}

/** A pct project whose first task is a benchmark with `reference` as its answer, and labelers `who`. */
async function benchmarkProject(t: TestApp, reference: Json, who: string[]): Promise<BenchmarkProject> {
  const created = await t.call('POST', '/v2/project', { body: { name: 'Drive benchmarks', type: 'pct' } });
  const pid = created.json().data.project._id as string;
  const stages = [
    { id: 'Start', type: 'Start', next: ['Label'] },
    { id: 'Label', type: 'Label', next: ['Done'] },
    { id: 'Done', type: 'Complete' },
  ];
  const set = await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY, stages } });
  expect(set.statusCode, set.body).toBe(200);
  const benchmark = await importPctTask(t, pid, frameUrls, 'bench');
  await importPctTask(t, pid, frameUrls, 'other');
  const saved = await t.call('POST', `/v2/annotate/${benchmark}`, { body: { answer: reference } });
  expect(saved.statusCode, saved.body).toBe(200);
  const marked = await t.call('POST', `/v2/project/${pid}/benchmarks`, { body: { tasks: [benchmark] } });
  expect(marked.statusCode, marked.body).toBe(200);
  const on = await t.call('POST', `/v2/project/${pid}`, { body: { benchmarkEnabled: true, benchmarkRatio: 1 } });
  expect(on.statusCode, on.body).toBe(200);
  const people: BenchmarkProject['people'] = {};
  for (const name of who) {
    const email = `${name}-${pid}@example.com`;
    people[name] = { email, key: await t.addUser(email, 'member') };
    await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [email], role: 'Labeler' } });
  }
  return { pid, benchmark, people };
}

/** The benchmark handed to `who`, submitted with `answer`: answers their submission. */
async function submitBenchmark(t: TestApp, b: BenchmarkProject, who: string, answer: Json): Promise<Json> {
  const key = b.people[who]?.key ?? null;
  const next = await t.call('GET', `/v2/project/${b.pid}/next?stageId=Label`, { key });
  expect(next.statusCode, next.body).toBe(200);
  expect(next.json().data.task._id).toBe(b.benchmark);
  const res = await t.call('POST', `/v2/annotate/${b.benchmark}?nextStage=true`, {
    body: { answer: { classifications: [], relations: [], ...answer } },
    key,
  });
  expect(res.statusCode, res.body).toBe(200);
  const list = await t.call('GET', `/v2/project/${b.pid}/benchmarkSubmissions?labeler=${b.people[who]?.email}`);
  const subs = list.json().data.submissions as Json[];
  expect(subs).toHaveLength(1);
  return subs[0] as Json;
}

describe.each(ENGINES)('benchmarks of point-cloud cuboids on %s', (engine) => {
  let t: TestApp;
  let b: BenchmarkProject;
  const submitAs = (who: string, tools: unknown[]) => submitBenchmark(t, b, who, { tools });

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    // The reference: a cube moving 2 m over the three frames (keyframes 0 and 2), and a polygon.
    const reference = { tools: [cube('r', 0, 0), cube('r', 2, 2), polygon('rp', 4)] };
    b = await benchmarkProject(t, reference, ['ann', 'bob', 'cat']);
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

/*
 * Point labels of frames 0 and 1 (10 and 5 points). Frame 0: A gives points 0-3 the road and 4-5
 * the car; B (its classes listed the other way round) gives 0-1 the road and 2-7 the car. Frame 1:
 * A gives its 5 points the car, B labels nothing. Road: 2 shared of 4, IoU 1/2; car: 2 shared of
 * 2 + 5 + 6 - 2 = 11, IoU 2/11; of the 13 points either labels, 4 have one class in both.
 */
const LABELS_A = [
  { page: 0, classes: ['car', 'road'], runs: [4, 2, 2, 1, 4, 0] },
  { page: 1, classes: ['car'], runs: [5, 1] },
];
const LABELS_B = [{ page: 0, classes: ['road', 'car'], runs: [2, 1, 6, 2, 2, 0] }];

describe.each(ENGINES)('per-point agreement of point labels on %s', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
  });
  afterAll(() => t?.close());

  it('scores consensus copies by the mean over classes of their points IoU', async () => {
    const created = await t.call('POST', '/v2/project', { body: { name: 'Segments', type: 'pct' } });
    const pid = created.json().data.project._id as string;
    const res = await t.call('POST', `/v2/project/${pid}`, {
      body: {
        categorySchema: ONTOLOGY,
        pctConfig: { segmentationMode: true },
        stages: consensusWorkflow({ threshold: 0.8, adjudicationMethod: 'first' }),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const parent = await importPctTask(t, pid, frameUrls, 'segments');
    const task = await submitConsensusRound(t, pid, parent, { pointLabels: LABELS_A }, { pointLabels: LABELS_B });
    // (2/11 + 1/2) / 2 = 15/44, kept to 6 decimals.
    expect(task).toMatchObject({ stage: 'Disputed', consensusScore: 0.340909 });
    const quality = await t.call('POST', `/v2/project/${pid}/quality`, { body: {} });
    const agreement = (quality.json().data.agreement as Json[]).map((a) => [a.schemaId, a.measure, a.measures]);
    expect(agreement).toEqual([
      ['car', 'iou', 1],
      ['road', 'iou', 1],
    ]);
    const byId = Object.fromEntries((quality.json().data.agreement as Json[]).map((a) => [a.schemaId, a.value]));
    expect(byId.car).toBeCloseTo(2 / 11, 4);
    expect(byId.road).toBeCloseTo(0.5, 4);
  });

  it('scores a benchmark per class by its points IoU, with the share of points given one class', async () => {
    const b = await benchmarkProject(t, { tools: [], pointLabels: LABELS_A }, ['dan', 'eve', 'fay']);
    const sub = await submitBenchmark(t, b, 'dan', { tools: [], pointLabels: LABELS_B });
    expect(sub.detail).toEqual([
      { schemaId: 'car', kind: 'points', score: 2 / 11, iou: 2 / 11, sameClass: 4 / 13 },
      { schemaId: 'road', kind: 'points', score: 0.5, iou: 0.5, sameClass: 4 / 13 },
    ]);
    // (2/11 + 1/2) / 2 * 100 = 34.0909..., to 3 decimals.
    expect(sub.score).toBe(34.091);
    // The reference's own labels score 100; labelling nothing scores 0 on every class it gives.
    const same = await submitBenchmark(t, b, 'eve', { tools: [], pointLabels: LABELS_A });
    expect(same.score).toBe(100);
    const none = await submitBenchmark(t, b, 'fay', { tools: [] });
    expect(none.detail.map((i: Json) => [i.schemaId, i.score, i.sameClass])).toEqual([
      ['car', 0, 0],
      ['road', 0, 0],
    ]);
    expect(none.score).toBe(0);
  });
});
