import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { metricsFixture } from '../helpers/metrics-fixture.js';
import type { RoleUsers } from '../helpers/roles.js';
import { ENGINES } from '../helpers/stores.js';

describe.each(ENGINES)('overview metrics on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let users: RoleUsers;
  const metric = async (name: string, key?: string) => {
    const res = await t.call('GET', `/v2/${projectId}/overview/${name}`, key ? { key } : {});
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Record<string, unknown>;
  };

  beforeAll(async () => {
    ({ t, projectId, users } = await metricsFixture(engine));
  });
  afterAll(() => t.close());

  it('LabelStageGroups: tasks per stage in workflow order', async () => {
    expect(await metric('LabelStageGroups')).toEqual({
      LabelStageGroups: [
        { stageId: 'Start', stageName: 'Start', type: 'Start', count: 0 },
        { stageId: 'lbl', stageName: 'Labeling', type: 'Label', count: 9 },
        { stageId: 'rev', stageName: 'QA', type: 'Review', count: 1 },
        { stageId: 'done', stageName: 'Finished', type: 'Complete', count: 1 },
        { stageId: 'arch', stageName: 'Archived', type: 'Archive', count: 1 },
      ],
    });
  });

  it('TimePerTask: count, average, median and p90 of Label and Review times, overall and per stage', async () => {
    // Overall [200, 400, 1000, 2000, 3000]; Labeling [1000, 2000, 3000]; QA [200, 400].
    expect(await metric('TimePerTask')).toEqual({
      TimePerTask: {
        count: 5,
        average: 1320,
        median: 1000,
        p90: 2600,
        stages: [
          { stageId: 'lbl', stageName: 'Labeling', type: 'Label', count: 3, average: 2000, median: 2000, p90: 2800 },
          { stageId: 'rev', stageName: 'QA', type: 'Review', count: 2, average: 300, median: 300, p90: 380 },
        ],
      },
    });
  });

  it('AnnotationStatus: TODO, Completed and Archived tasks, copies left out', async () => {
    expect(await metric('AnnotationStatus')).toEqual({ AnnotationStatus: { TODO: 9, Completed: 1, Archived: 1 } });
  });

  it('AnswerDistribution: values per classification and objects per tool, from current answers', async () => {
    expect(await metric('AnswerDistribution')).toEqual({
      AnswerDistribution: {
        classifications: [
          {
            schemaId: 'weather',
            title: 'Weather',
            total: 4,
            distinctValues: 2,
            answers: [
              { value: 'sun', count: 3, label: 'Sunny' },
              { value: 'rain', count: 1, label: 'Rainy' },
            ],
          },
          {
            schemaId: 'colors',
            title: 'Colors',
            total: 2,
            distinctValues: 2,
            answers: [
              { value: 'blue', count: 1, label: 'blue' },
              { value: 'red', count: 1, label: 'red' },
            ],
          },
        ],
        tools: [
          { schemaId: 'car', title: 'Car', tool: 'bounding-box', count: 3 },
          { schemaId: 'person', title: 'Person', tool: 'point', count: 1 },
        ],
      },
    });
  });

  it('ConsensusRanges: scores in ten buckets of 10%, boundaries upward', async () => {
    const { ConsensusRanges } = (await metric('ConsensusRanges')) as { ConsensusRanges: { count: number }[] };
    expect(ConsensusRanges.map((r) => r.count)).toEqual([1, 1, 0, 1, 0, 0, 0, 1, 0, 1]);
    expect(ConsensusRanges[7]).toEqual({ from: 70, to: 80, count: 1 });
  });

  it('AssetSize: assets per width x height bucket and per file type', async () => {
    expect(await metric('AssetSize')).toEqual({
      AssetSize: {
        sizes: [
          { width: '256-511', height: 'unknown', count: 1 },
          { width: '512-1023', height: '256-511', count: 1 },
          { width: '1024-2047', height: '1024-2047', count: 1 },
          { width: '4096+', height: '0-255', count: 1 },
          { width: 'unknown', height: 'unknown', count: 7 },
        ],
        fileTypes: [
          { type: 'unknown', count: 5 },
          { type: 'jpg', count: 2 },
          { type: 'gz', count: 1 },
          { type: 'jpeg', count: 1 },
          { type: 'png', count: 1 },
          { type: 'webp', count: 1 },
        ],
      },
    });
  });

  it('answers 400 naming an unknown metric, matches names in any case, and needs readAll', async () => {
    const res = await t.call('GET', `/v2/${projectId}/overview/Velocity`);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('metric');
    expect(res.json().message).toContain('"Velocity"');
    expect(Object.keys(await metric('annotationstatus'))).toEqual(['AnnotationStatus']);
    expect(Object.keys(await metric('AnnotationStatus', users.key.Reviewer))).toEqual(['AnnotationStatus']);
    const labeler = await t.call('GET', `/v2/${projectId}/overview/AnnotationStatus`, { key: users.key.Labeler });
    expect(labeler.statusCode).toBe(403);
    const outsider = await t.call('GET', `/v2/${projectId}/overview/AnnotationStatus`, { key: users.key.outsider });
    expect(outsider.statusCode).toBe(404);
  });

  it('answers empty figures for a project with no tasks', async () => {
    const empty = (await t.call('POST', '/v2/project', { body: { name: 'Empty' } })).json().data.project._id;
    const get = async (name: string) => (await t.call('GET', `/v2/${empty}/overview/${name}`)).json().data[name];
    expect(await get('TimePerTask')).toEqual({
      count: 0,
      average: null,
      median: null,
      p90: null,
      stages: [
        { stageId: 'Label', stageName: 'Label', type: 'Label', count: 0, average: null, median: null, p90: null },
      ],
    });
    expect(await get('AnswerDistribution')).toEqual({ classifications: [], tools: [] });
    expect(await get('AssetSize')).toEqual({ sizes: [], fileTypes: [] });
  });

  it('TimePerTask of a single entry: every figure is that entry', async () => {
    const one = (await t.call('POST', '/v2/project', { body: { name: 'One' } })).json().data.project._id;
    const imported = await t.call('POST', `/v2/project/${one}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/one.jpg' }] },
    });
    const taskId = imported.json().data.assets[0].taskId;
    await t.call('POST', `/v2/annotate/${taskId}?nextStage=true`, { body: { answer: {}, duration: 4321 } });
    const res = await t.call('GET', `/v2/${one}/overview/TimePerTask`);
    expect(res.json().data.TimePerTask).toMatchObject({ count: 1, average: 4321, median: 4321, p90: 4321 });
  });
});
