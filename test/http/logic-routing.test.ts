import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

const OWNER = 'admin@annotary.local';
const cond = (type: string, index: number, value: Record<string, unknown>) => ({ type, index, value });
const STAGES = [
  { id: 'Start', type: 'Start', next: ['Gate'] },
  {
    id: 'Gate',
    type: 'Logic',
    next: ['Hold', 'Label'],
    logic: { conditions: [cond('Batch', 0, { batches: ['vip'] })] },
  },
  { id: 'Label', type: 'Label', next: ['Check'] },
  {
    id: 'Check',
    type: 'Logic',
    next: ['Review', 'Hold', 'Complete'],
    logic: {
      conditions: [
        cond('AnnotationType', 0, { tools: [{ filter: ['exists___car', 'not-exist___dog'] }] }),
        cond('Duration', 1, { operator: 'gt', duration: 5000 }),
      ],
    },
  },
  {
    id: 'Who',
    type: 'Logic',
    next: ['Hold', 'Complete'],
    logic: { conditions: [cond('Annotator', 0, { emails: [OWNER] })] },
  },
  {
    id: 'Triage',
    type: 'Logic',
    next: ['Archive', 'Complete'],
    logic: { conditions: [cond('IssueErrorCode', 0, { errorCodes: ['E1'] })] },
  },
  { id: 'Review', type: 'Review', next: ['Complete', 'Label'] },
  { id: 'Hold', type: 'Hold', next: ['Label'] },
  { id: 'Complete', type: 'Complete' },
  { id: 'Archive', type: 'Archive' },
];
const ONTOLOGY = {
  tools: [
    { schemaId: 'car', title: 'Car', tool: 'bounding-box' },
    { schemaId: 'dog', title: 'Dog', tool: 'bounding-box' },
  ],
};
const BOX = (schemaId: string) => ({ schemaId, 'bounding-box': { x: 1, y: 2, width: 3, height: 4 } });
const SAMPLING = [
  { id: 'Start', type: 'Start', next: ['Sample'] },
  {
    id: 'Sample',
    type: 'Logic',
    next: ['Hold', 'Label'],
    logic: { conditions: [cond('RandomSample', 0, { sampleRate: 0.5 })] },
  },
  { id: 'Hold', type: 'Hold', next: ['Label'] },
  { id: 'Label', type: 'Label', next: ['Complete'] },
  { id: 'Complete', type: 'Complete' },
];

describe.each(ENGINES)('Logic stages route imported, submitted and requeued tasks on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  const ids: Record<string, string> = {};
  const task = async (id: string) => (await t.call('GET', `/v2/task/${id}`)).json().data.task;
  const trail = async (id: string) =>
    (await t.call('GET', `/v2/task/${id}/history`))
      .json()
      .data.taskHistory.map((h: { stageId: string; trigger: string }) => `${h.stageId}:${h.trigger}`);

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_RANDOM_SEED: 'logic-test' } });
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Logic' } })).json().data.project._id;
    const upd = await t.call('POST', `/v2/project/${projectId}`, {
      body: {
        stages: STAGES,
        categorySchema: ONTOLOGY,
        errorCodesEnabled: true,
        errorSchema: { errorCodes: ['E1', 'E2'] },
      },
    });
    expect(upd.statusCode).toBe(200);
  });
  afterAll(() => t.close());

  it('routes imported tasks by batch (name) at once: vip to Hold, others to Label', async () => {
    await t.call('POST', `/v2/batches/${projectId}`, { body: { batches: 'vip' } });
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: {
        assets: [
          { data: 'https://cdn.example.com/a.jpg', batches: ['vip'] },
          { data: 'https://cdn.example.com/b.jpg' },
          { data: 'https://cdn.example.com/c.jpg' },
        ],
      },
    });
    expect(res.statusCode).toBe(201);
    for (const a of res.json().data.assets) ids[a.externalId] = a.taskId;
    expect((await task(ids['a.jpg'] as string)).stage).toBe('Hold');
    expect((await task(ids['b.jpg'] as string)).stage).toBe('Label');
    expect(await trail(ids['a.jpg'] as string)).toEqual(['Gate:logic']);
    expect(await trail(ids['b.jpg'] as string)).toEqual(['Gate:logic']);
  });

  it('routes submitted tasks by annotation type, then by Label duration, else to the last output', async () => {
    const submit = (id: string, tools: unknown[], duration: number) =>
      t.call('POST', `/v2/annotate/${id}?nextStage=true`, { body: { answer: { tools }, duration } });
    expect((await submit(ids['b.jpg'] as string, [BOX('car')], 1000)).json().data.task.stage).toBe('Review');
    expect(await trail(ids['b.jpg'] as string)).toEqual(['Gate:logic', 'Label:submit', 'Check:logic']);
    // A dog spoils the AnnotationType filter; 9 s of Label time is over the 5 s limit.
    expect((await submit(ids['c.jpg'] as string, [BOX('car'), BOX('dog')], 9000)).json().data.task.stage).toBe('Hold');
    // Forwarded back to Label and submitted in 1 s more: 10 s in all, still over.
    await t.call('POST', `/v2/project/${projectId}/forward`, { body: { stageId: 'Hold', taskIds: [ids['c.jpg']] } });
    expect((await submit(ids['c.jpg'] as string, [], 1000)).json().data.task.stage).toBe('Hold');
    await t.call('POST', `/v2/project/${projectId}/forward`, { body: { stageId: 'Hold', taskIds: [ids['a.jpg']] } });
    expect((await submit(ids['a.jpg'] as string, [BOX('dog')], 5000)).json().data.task).toMatchObject({
      stage: 'Complete',
      status: 'Completed',
    });
  });

  it('routes a task requeued into a Logic stage again: Annotator and IssueErrorCode', async () => {
    const requeue = (id: string, toStageId: string) =>
      t.call('POST', `/v2/project/${projectId}/requeueTasks`, { body: { toStageId, filters: { taskIds: [id] } } });
    expect((await requeue(ids['b.jpg'] as string, 'Who')).json().data.modifiedCount.modified).toBe(1);
    expect((await task(ids['b.jpg'] as string)).stage).toBe('Hold');
    expect((await trail(ids['b.jpg'] as string)).slice(-2)).toEqual(['Review:requeue', 'Who:logic']);

    const issue = await t.call('POST', '/v2/issues', {
      // The client's object form of a code: the condition matches its key.
      body: {
        content: 'wrong class',
        labelTask: ids['c.jpg'],
        errorCodes: [{ category: 'Class', name: 'Wrong class', key: 'E1' }],
      },
    });
    expect(issue.statusCode).toBe(201);
    await requeue(ids['c.jpg'] as string, 'Triage');
    expect(await task(ids['c.jpg'] as string)).toMatchObject({ stage: 'Archive', status: 'Archived' });
    await requeue(ids['a.jpg'] as string, 'Triage');
    expect(await task(ids['a.jpg'] as string)).toMatchObject({ stage: 'Complete', status: 'Completed' });
  });

  it('samples the same assets again with the same ANNOTARY_RANDOM_SEED', async () => {
    const assets = Array.from({ length: 40 }, (_, i) => ({ data: `https://cdn.example.com/s/${i}.jpg` }));
    const split = async () => {
      const pid = (await t.call('POST', '/v2/project', { body: { name: 'Sampling' } })).json().data.project._id;
      expect((await t.call('POST', `/v2/project/${pid}`, { body: { stages: SAMPLING } })).statusCode).toBe(200);
      await t.call('POST', `/v2/project/${pid}/cloud`, { body: { assets } });
      const held = await t.call('GET', `/v2/project/${pid}/tasks?stage=Hold&limit=100&sort=externalId`);
      return held.json().data.tasks.map((x: { externalId: string }) => x.externalId);
    };
    const first = await split();
    expect(first.length).toBeGreaterThan(5);
    expect(first.length).toBeLessThan(35);
    expect(await split()).toEqual(first);
  });
});
