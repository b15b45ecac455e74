import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';
import { streetOntology } from '../helpers/street-scene.js';

/*
 * POST /project/{id}/quality: the Quality page's numbers, made through the API as people make
 * them (consensus rounds, reviews, issues, benchmark submissions), filtered by time and batch.
 */

const DAY1 = '2026-03-02T09:00:00.000Z';
const DAY2 = '2026-03-03T09:00:00.000Z';
const DAY3 = '2026-03-04T00:00:00.000Z';

// Consensus -> Review -> Done; the rounds pass to review whatever their score.
const STAGES = [
  { id: 'Start', type: 'Start', next: ['C'] },
  { id: 'C', type: 'Consensus', next: ['Review', 'Review'], consensusConfig: { threshold: 1 } },
  { id: 'c1', type: 'Label', next: ['C'], consensusId: 'C' },
  { id: 'c2', type: 'Label', next: ['C'], consensusId: 'C' },
  { id: 'Review', type: 'Review', next: ['Done', 'Disputed'] },
  { id: 'Disputed', type: 'Hold', next: ['Done'] },
  { id: 'Done', type: 'Complete' },
];
const LABEL_STAGES = [
  { id: 'Start', type: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', next: ['Done'] },
  { id: 'Done', type: 'Complete' },
];

const car = (width: number) => ({ schemaId: 'car', 'bounding-box': { x: 10, y: 10, width, height: 20 } });
const copy = (weather: string, cars: unknown[]) => ({
  tools: cars,
  classifications: [{ schemaId: 'weather', answer: weather }],
});
const box = (x: number, height = 10) => ({ schemaId: 'car', 'bounding-box': { x, y: x, width: 10, height } });
const REFERENCE = { tools: [box(0), box(500)], classifications: [{ schemaId: 'weather', answer: 'Sunny' }] };
// The first car at IoU 0.5, the second missed, the weather wrong: 12.5.
const HALF_WRONG = { tools: [box(0, 5)], classifications: [{ schemaId: 'weather', answer: 'Rainy' }] };

interface Report {
  benchmarks: { labeler: string; benchmarks: number; averageScore: number; days: unknown[] }[];
  agreement: { schemaId: string; title: string; measure: string; value: number | null; measures: number }[];
  reviews: { accepted: number; rejected: number; rejectionRate: number | null; reviewers: unknown[]; days: unknown[] };
  errorCodes: { enabled: boolean; codes: { code: string; issues: number }[]; withoutCode: number };
}

describe.each(ENGINES)('the Quality report on %s', (engine) => {
  let t: TestApp;
  let pid: string;
  let benchPid: string;
  let labelerKey: string;
  const labeler = `lab-quality-${engine}@example.com`;
  const clock = manualClock(DAY1);

  const report = async (project: string, body: unknown): Promise<Report> => {
    const res = await t.call('POST', `/v2/project/${project}/quality`, { body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Report;
  };
  const ok = async (method: 'POST' | 'GET', url: string, body?: unknown, key?: string) => {
    const res = await t.call(method, url, { ...(body === undefined ? {} : { body }), ...(key ? { key } : {}) });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data;
  };
  const copies = async (project: string, stage: string) =>
    (await ok('GET', `/v2/project/${project}/tasks?limit=100&stage=${stage}`)).tasks as {
      _id: string;
      parentTask: string;
    }[];

  beforeAll(async () => {
    t = await makeTestApp(engine, { clock, env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    labelerKey = await t.addUser(labeler);

    // A consensus project: three rounds, one on day 1 and two on day 2.
    pid = (await ok('POST', '/v2/project', { name: 'Quality' })).project._id;
    await ok('POST', `/v2/project/${pid}`, {
      categorySchema: streetOntology(),
      stages: STAGES,
      errorCodesEnabled: true,
      errorSchema: { codes: ['E1', 'E2', 'E3'] },
    });
    await ok('POST', `/v2/project/${pid}/assigned`, { assignees: [labeler], role: 'Labeler' });
    await ok('POST', `/v2/batches/${pid}`, { batches: 'night' });
    const parents = (
      await ok('POST', `/v2/project/${pid}/cloud`, {
        assets: [
          { data: 'https://cdn.example.com/q1.jpg', batches: ['night'] },
          { data: 'https://cdn.example.com/q2.jpg' },
          { data: 'https://cdn.example.com/q3.jpg' },
        ],
      })
    ).assets.map((a: { taskId: string }) => a.taskId) as string[];
    const [c1, c2] = [await copies(pid, 'c1'), await copies(pid, 'c2')];
    const work = async (i: number, first: unknown, second: unknown) => {
      const parent = parents[i];
      await ok('POST', `/v2/annotate/${c1.find((c) => c.parentTask === parent)?._id}?nextStage=true`, {
        answer: first,
      });
      await ok('POST', `/v2/annotate/${c2.find((c) => c.parentTask === parent)?._id}?nextStage=true`, {
        answer: second,
      });
    };
    // Day 1: round 1 agrees fully (car IoU 1, Sunny / Sunny); it is accepted, with an E1 issue.
    await work(0, copy('Sunny', [car(20)]), copy('Sunny', [car(20)]));
    await ok('POST', `/v2/review/${parents[0]}`, { reviewStatus: 'Accepted' });
    await ok('POST', '/v2/issues', { content: 'loose', labelTask: parents[0], errorCodes: ['E1'] });
    // Day 2: round 2 half agrees on the car (IoU 0.5), Sunny / Rainy, rejected with E1 and E2;
    // round 3 draws no car, Rainy / Rainy.
    clock.set(DAY2);
    await work(1, copy('Sunny', [car(20)]), copy('Rainy', [car(10)]));
    await work(2, copy('Rainy', []), copy('Rainy', []));
    await ok('POST', `/v2/review/${parents[1]}`, { reviewStatus: 'Rejected' });
    await ok('POST', '/v2/issues', { content: 'wrong', labelTask: parents[1], errorCodes: ['E1', 'E2'] });

    // A benchmark project: the labeler works two benchmarks, one a day.
    clock.set(DAY1);
    benchPid = (await ok('POST', '/v2/project', { name: 'Benchmarks' })).project._id;
    await ok('POST', `/v2/project/${benchPid}`, { categorySchema: streetOntology(), stages: LABEL_STAGES });
    await ok('POST', `/v2/batches/${benchPid}`, { batches: 'night' });
    const marked = (
      await ok('POST', `/v2/project/${benchPid}/cloud`, {
        assets: [
          { data: 'https://cdn.example.com/b1.jpg', batches: ['night'] },
          { data: 'https://cdn.example.com/b2.jpg' },
          { data: 'https://cdn.example.com/b3.jpg' },
        ],
      })
    ).assets
      .map((a: { taskId: string }) => a.taskId)
      .slice(0, 2) as string[];
    await ok('POST', `/v2/project/${benchPid}/benchmarks`, { tasks: marked, answer: REFERENCE });
    await ok('POST', `/v2/project/${benchPid}`, { benchmarkEnabled: true, benchmarkRatio: 1 });
    await ok('POST', `/v2/project/${benchPid}/assigned`, { assignees: [labeler], role: 'Labeler' });
    for (const [day, answer] of [
      [DAY1, REFERENCE],
      [DAY2, HALF_WRONG],
    ] as const) {
      clock.set(day);
      const next = await ok('GET', `/v2/project/${benchPid}/next?stageId=Label`, undefined, labelerKey);
      expect(next.task.type).toBe('default');
      await ok('POST', `/v2/annotate/${next.task._id}?nextStage=true`, { answer }, labelerKey);
    }
  });
  afterAll(() => t.close());

  it("answers consensus agreement per class: mean IoU for the car, Cohen's kappa for the weather", async () => {
    const all = await report(pid, {});
    const byId = Object.fromEntries(all.agreement.map((a) => [a.schemaId, a]));
    // Rounds 1 and 2 drew cars: (1 + 0.5) / 2.
    expect(byId.car).toMatchObject({ title: 'Car', measure: 'iou', value: 0.75, measures: 2 });
    // Pairs (Sunny, Sunny), (Sunny, Rainy), (Rainy, Rainy): observed 2/3, expected 4/9, kappa 0.4.
    expect(byId.weather).toMatchObject({ title: 'Weather', measure: 'kappa', value: 0.4, observed: 0.6667 });
    expect(byId.weather?.measures).toBe(3);
    // Day 2 only: (Sunny, Rainy), (Rainy, Rainy): observed 1/2, expected 1/2, kappa 0.
    const day2 = await report(pid, { interval: [DAY2.slice(0, 10), DAY3] });
    const byId2 = Object.fromEntries(day2.agreement.map((a) => [a.schemaId, a]));
    expect(byId2.car).toMatchObject({ value: 0.5, measures: 1 });
    expect(byId2.weather).toMatchObject({ value: 0, measures: 2 });
    // The night batch holds round 1 alone: full agreement.
    const night = await report(pid, { batches: ['night'] });
    expect(night.agreement.map((a) => [a.schemaId, a.value, a.measures])).toEqual([
      ['car', 1, 1],
      ['weather', 1, 1],
    ]);
  });

  it('answers review rejection rates per reviewer and day, and issues per error code', async () => {
    const all = await report(pid, {});
    expect(all.reviews).toMatchObject({ accepted: 1, rejected: 1, rejectionRate: 0.5 });
    expect(all.reviews.reviewers).toEqual([
      { reviewer: 'admin@annotary.local', accepted: 1, rejected: 1, rejectionRate: 0.5 },
    ]);
    expect(all.reviews.days).toEqual([
      { day: DAY1.slice(0, 10), accepted: 1, rejected: 0, rejectionRate: 0 },
      { day: DAY2.slice(0, 10), accepted: 0, rejected: 1, rejectionRate: 1 },
    ]);
    expect(all.errorCodes).toEqual({
      enabled: true,
      codes: [
        { code: 'E1', declared: true, issues: 2 },
        { code: 'E2', declared: true, issues: 1 },
        { code: 'E3', declared: true, issues: 0 },
      ],
      withoutCode: 0,
    });
    const night = await report(pid, { batches: ['night'] });
    expect(night.reviews).toMatchObject({ accepted: 1, rejected: 0, rejectionRate: 0 });
    expect(night.errorCodes.codes.map((c) => c.issues)).toEqual([1, 0, 0]);
    const day1 = await report(pid, { interval: [DAY1, DAY2.slice(0, 10)] });
    expect(day1.reviews.rejected).toBe(0);
  });

  it("answers each labeler's benchmark scores per day, within the time range and batches", async () => {
    const all = await report(benchPid, {});
    expect(all.benchmarks).toEqual([
      {
        labeler,
        benchmarks: 2,
        averageScore: 56.25,
        days: [
          { day: DAY1.slice(0, 10), benchmarks: 1, averageScore: 100 },
          { day: DAY2.slice(0, 10), benchmarks: 1, averageScore: 12.5 },
        ],
      },
    ]);
    const day2 = await report(benchPid, { interval: [DAY2.slice(0, 10), DAY3] });
    expect(day2.benchmarks.map((b) => [b.benchmarks, b.averageScore])).toEqual([[1, 12.5]]);
    // The first benchmark handed out is the first marked, in the night batch.
    const night = await report(benchPid, { batches: ['night'] });
    expect(night.benchmarks.map((b) => [b.benchmarks, b.averageScore])).toEqual([[1, 100]]);
    expect((await report(benchPid, { batches: [] })).benchmarks).toEqual([]);
  });

  it('is for Managers: a Labeler gets 403; a bad filter is a 400 naming the field', async () => {
    const denied = await t.call('POST', `/v2/project/${pid}/quality`, { body: {}, key: labelerKey });
    expect(denied.statusCode).toBe(403);
    const bad = await t.call('POST', `/v2/project/${pid}/quality`, { body: { interval: ['not a date', DAY2] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('interval[0]');
    const batch = await t.call('POST', `/v2/project/${pid}/quality`, { body: { batches: ['nope'] } });
    expect(batch.statusCode).toBe(400);
    expect(batch.body).toContain('batches[0]');
    expect(batch.body).not.toMatch(/select|stack/i);
    // The likelihood of a benchmark is a share: above 1 is refused, naming the field.
    const ratio = await t.call('POST', `/v2/project/${benchPid}`, { body: { benchmarkRatio: 10 } });
    expect(ratio.statusCode).toBe(400);
    expect(ratio.body).toContain('benchmarkRatio');
  });

  it('turned on for the first time without a likelihood, benchmarking hands out 10 %; 0 stays a pause', async () => {
    const id = (await ok('POST', '/v2/project', { name: 'First on' })).project._id;
    const on = await ok('POST', `/v2/project/${id}`, { benchmarkEnabled: true });
    expect(on.project).toMatchObject({ benchmarkEnabled: true, benchmarkRatio: 0.1 });
    await ok('POST', `/v2/project/${id}`, { benchmarkRatio: 0, benchmarkEnabled: false });
    const again = await ok('POST', `/v2/project/${id}`, { benchmarkEnabled: true });
    expect(again.project).toMatchObject({ benchmarkEnabled: true, benchmarkRatio: 0 });
  });
});
