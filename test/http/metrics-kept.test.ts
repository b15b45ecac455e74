import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as metricFigures from '../../src/store/migrations/008-metric-figures.js';
import * as trackCounts from '../../src/store/migrations/023-track-counts.js';
import type { TestApp } from '../helpers/app.js';
import { makeTestApp } from '../helpers/app.js';
import { car, ONTOLOGY, weather } from '../helpers/metrics-fixture.js';
import { expectKeptFiguresExact } from '../helpers/metrics-reference.js';
import { ENGINES } from '../helpers/stores.js';
import { consensusWorkflow } from '../helpers/street-scene.js';

/*
 * AnswerDistribution and AssetSize are kept as data is written (migration 008). After each step
 * of a mixed workload through the API, what is kept must equal what reading every answer and
 * asset from scratch gives (test/helpers/metrics-reference.ts).
 */

const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['lbl'], autoForward: false },
  { id: 'lbl', type: 'Label', name: 'Labeling', next: ['rev'] },
  { id: 'rev', type: 'Review', name: 'QA', next: ['done', 'lbl'] },
  { id: 'done', type: 'Complete', name: 'Finished', next: [] },
  { id: 'arch', type: 'Archive', name: 'Archived', next: [] },
];
const CONSENSUS_STAGES = consensusWorkflow({ threshold: 0.8 });
const ASSETS = [
  { data: 'https://cdn.example.com/img/a.jpg', metadata: { width: 640, height: 480 } },
  { data: 'https://cdn.example.com/img/b.JPG?sig=1', metadata: { width: 1920, height: 1080 } },
  { data: 'https://cdn.example.com/img/c.png#frag', metadata: { width: 4096, height: 100 } },
  { data: 'https://cdn.example.com/files/d', metadata: { width: 'wide', height: 2048 } },
  { data: 'https://cdn.example.com/e.tar.gz', metadata: { width: 255.5, height: true } },
  { data: 'https://cdn.example.com', externalId: 'f' },
  { data: 'https://cdn.example.com/x.', externalId: 'g' },
  { data: 'https://cdn.example.com/v1.2/file', externalId: 'h' },
  { data: 'https://cdn.example.com/a.verylongextension', externalId: 'i' },
  { data: 'https://cdn.example.com/k.WebP', externalId: 'k', metadata: { width: 0, height: 512 } },
];
const colors = (...c: unknown[]) => ({ schemaId: 'colors', answer: c });

describe.each(ENGINES)('kept metric figures on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let tasks: string[];
  const exact = () => expectKeptFiguresExact(t.store.db, engine, projectId);
  const ok = async (method: string, url: string, body?: unknown) => {
    const res = await t.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data;
  };
  const annotate = (i: number, answer: unknown, submit = true) =>
    ok('POST', `/v2/annotate/${tasks[i]}${submit ? '?nextStage=true' : ''}`, { answer, duration: 100 });
  const review = (i: number, reviewStatus: string) => ok('POST', `/v2/review/${tasks[i]}`, { reviewStatus });

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    projectId = (await ok('POST', '/v2/project', { name: 'Kept' })).project._id;
    await ok('POST', `/v2/project/${projectId}`, { stages: STAGES, categorySchema: ONTOLOGY });
    tasks = (await ok('POST', `/v2/project/${projectId}/cloud`, { assets: ASSETS })).assets.map(
      (a: { taskId: string }) => a.taskId,
    );
  });
  afterAll(() => t.close());

  it('keeps the figures exact through pre-labels, labelling, review, requeue, archive and deletion', async () => {
    expect(await exact()).toEqual({ facts: 0, assets: 10 });
    const labels = await ok('POST', '/v2/import/labels', {
      project: projectId,
      jsonContent: [
        { externalId: 'a.jpg', objects: [car(1), car(2)], classifications: [weather('sun'), colors('red', 'red')] },
        { externalId: 'b.JPG', tools: [car(3)], classifications: [weather('rain'), colors('blue', 7, true, null)] },
        { externalId: 'c.png', classifications: [{ schemaId: 'weather', answer: { nested: 'object' } }] },
        { externalId: 'd', classifications: [weather(''), { schemaId: 'colors', answer: [['nested'], 2.5, false] }] },
        { externalId: 'e.tar.gz', objects: [{ schemaId: 'person', point: [5, 5] }] },
      ],
    });
    expect(labels.imported).toBe(5);
    expect((await exact()).facts).toBe(14);

    await ok('POST', `/v2/project/${projectId}/forward`, { stageId: 'Start', taskIds: tasks });
    await annotate(0, { tools: [car(1)], classifications: [weather('sun'), colors('red', 'green')] });
    await annotate(1, { tools: [car(3), car(4)], classifications: [weather('sun')] }, false);
    await annotate(2, { classifications: [weather('rain'), colors('green')] });
    await annotate(5, { tools: [car(9)], classifications: [weather('sun')] });
    await exact();

    await review(0, 'Accepted');
    await review(2, 'Rejected');
    await annotate(2, { classifications: [weather('sun'), colors('blue')] });
    await review(2, 'Accepted');
    await review(5, 'Rejected');
    await exact();

    await ok('POST', `/v2/project/${projectId}/requeueTasks`, {
      toStageId: 'lbl',
      filters: { taskIds: [tasks[0], tasks[3]] },
      options: { removeAnnotations: true },
    });
    await ok('POST', `/v2/project/${projectId}/requeueTasks`, { toStageId: 'arch', filters: { taskIds: [tasks[1]] } });
    await ok('POST', `/v2/project/${projectId}/updatePriority`, { filters: { taskIds: tasks }, priority: 5 });
    await exact();

    await ok('DELETE', `/v2/project/${projectId}/assets`, { assets: [(await assetIdOf(tasks[2] as string)) ?? ''] });
    const after = await exact();
    expect(after.assets).toBe(9);

    // A path outside the API: a task removed from the store by hand still leaves the counts exact.
    await t.store.db
      .deleteFrom('task_history')
      .where('task_id', '=', tasks[5] as string)
      .execute();
    await t.store.db
      .deleteFrom('tasks')
      .where('id', '=', tasks[5] as string)
      .execute();
    const final = await exact();
    expect(final.facts).toBeLessThan(after.facts);

    const figures = (await ok('GET', `/v2/${projectId}/overview/AnswerDistribution`)).AnswerDistribution;
    const weatherRow = figures.classifications.find((c: { schemaId: string }) => c.schemaId === 'weather');
    expect(weatherRow).toMatchObject({ schemaId: 'weather', title: 'Weather' });
    expect(weatherRow.total).toBeGreaterThan(0);
  });

  const assetIdOf = async (taskId: string) =>
    (await t.store.db.selectFrom('tasks').select('asset_id').where('id', '=', taskId).executeTakeFirst())?.asset_id;

  it('counts a consensus parent once, never its copies', async () => {
    const pid = (await ok('POST', '/v2/project', { name: 'Kept consensus' })).project._id;
    await ok('POST', `/v2/project/${pid}`, { stages: CONSENSUS_STAGES, categorySchema: ONTOLOGY });
    const imported = await ok('POST', `/v2/project/${pid}/cloud`, {
      assets: [{ data: 'https://cdn.example.com/agree.jpg' }, { data: 'https://cdn.example.com/split.jpg' }],
    });
    const parents: string[] = imported.assets.map((a: { taskId: string }) => a.taskId);
    const listed = await ok('GET', `/v2/project/${pid}/tasks?limit=100`);
    const copies = listed.tasks.filter((x: { type: string }) => x.type === 'consensus');
    expect(copies).toHaveLength(4);
    for (const [i, copy] of copies.entries()) {
      const sky = copy.parentTask === parents[0] || i % 2 === 0 ? 'sun' : 'rain';
      const res = await t.call('POST', `/v2/annotate/${copy._id}?nextStage=true`, {
        body: { answer: { tools: [car(10)], classifications: [weather(sky)] } },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const kept = await expectKeptFiguresExact(t.store.db, engine, pid);
    // Two parents with an adjudicated answer each: one weather value and one car per parent.
    expect(kept.facts).toBe(4);
  });

  it('counts an object of a video once, however many keyframes its track has', async () => {
    const pid = (await ok('POST', '/v2/project', { name: 'Kept video' })).project._id;
    await ok('POST', `/v2/project/${pid}`, { stages: STAGES, categorySchema: ONTOLOGY });
    const [clip] = (
      await ok('POST', `/v2/project/${pid}/cloud`, {
        assets: [{ data: 'https://cdn.example.com/clip.mp4', metadata: { frameTotal: 100 } }],
      })
    ).assets.map((a: { taskId: string }) => a.taskId);
    const on = (objectId: string, page: number, extra = {}) => ({ ...car(page), objectId, page, ...extra });
    const track = [on('a', 0), on('a', 30), on('a', 45, { interpolationStopped: true }), on('a', 60)];
    const cars = async () =>
      (await ok('GET', `/v2/${pid}/overview/AnswerDistribution`)).AnswerDistribution.tools.find(
        (x: { schemaId: string }) => x.schemaId === 'car',
      ).count;
    await ok('POST', `/v2/annotate/${clip}`, { answer: { tools: [...track, on('b', 10), on('b', 20)] } });
    expect(await cars()).toBe(2);
    // An object without a frame (a whole-video one) counts as itself.
    await ok('POST', `/v2/annotate/${clip}`, { answer: { tools: [...track, car(3)] } });
    expect(await cars()).toBe(2);
    await ok('POST', `/v2/annotate/${clip}`, { answer: { tools: track } });
    expect(await cars()).toBe(1);
    await expectKeptFiguresExact(t.store.db, engine, pid);
    // Made again from scratch by migration 023, the same.
    const db = t.store.db as unknown as Kysely<unknown>;
    await ok('POST', `/v2/annotate/${clip}`, { answer: { tools: [...track, on('b', 10), on('b', 20)] } });
    await trackCounts.down(db);
    expect(await cars()).toBe(6);
    await trackCounts.up(db);
    expect(await cars()).toBe(2);
    await ok('POST', `/v2/annotate/${clip}`, { answer: { tools: [on('b', 10), on('b', 20)] } });
    expect(await cars()).toBe(1);
  });

  it('migration 008 run on existing data fills what the triggers and the import keep', async () => {
    const db = t.store.db as unknown as Kysely<unknown>;
    await metricFigures.down(db);
    await metricFigures.up(db);
    await trackCounts.up(db);
    const figures = await exact();
    expect(figures.facts).toBeGreaterThan(0);
    expect(figures.assets).toBe(9);
    // And the triggers it made keep them from there on.
    await annotate(4, { tools: [car(5)], classifications: [weather('rain'), colors('red')] }, false);
    expect((await exact()).facts).toBe(figures.facts + 2);
  });
});
