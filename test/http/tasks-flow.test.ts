import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { streetOntology } from '../helpers/street-scene.js';

const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Review'] },
  { id: 'Review', type: 'Review', name: 'Review', next: ['Complete', 'Label'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];
const ONTOLOGY = streetOntology({ weatherRequired: true, sunOnly: true });
const BOX = { schemaId: 'car', 'bounding-box': { x: 1, y: 2, width: 30, height: 40 } };

describe.each(ENGINES)('tasks through the human stages on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let taskIds: string[];
  beforeAll(async () => {
    t = await makeTestApp(engine);
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Flow' } })).json().data.project._id;
    const upd = await t.call('POST', `/v2/project/${projectId}`, {
      body: { stages: STAGES, categorySchema: ONTOLOGY },
    });
    expect(upd.statusCode).toBe(200);
  });
  afterAll(() => t.close());

  it('imports three assets into tasks waiting in Label', async () => {
    await t.call('POST', `/v2/batches/${projectId}`, { body: { batches: 'first' } });
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: {
        assets: [
          { data: 'https://cdn.example.com/img/a.jpg', batches: ['first'] },
          { data: 'https://cdn.example.com/img/b.jpg', externalId: 'bee' },
          { data: 'https://cdn.example.com/img/c.jpg', metadata: { width: 640, height: 480 } },
        ],
      },
    });
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(data.assetsCreated).toBe(3);
    expect(data.assets.map((a: { externalId: string }) => a.externalId)).toEqual(['a.jpg', 'bee', 'c.jpg']);
    taskIds = data.assets.map((a: { taskId: string }) => a.taskId);
    const list = (await t.call('GET', `/v2/project/${projectId}/tasks?stage=Label&limit=10`)).json().data;
    expect(list.total).toBe(3);
    const project = (await t.call('GET', `/v2/project/${projectId}`)).json().data.project;
    expect(project.assetCount).toBe(3);
  });

  it('labels, rejects, fixes, accepts: Completed with four history entries', async () => {
    const id = taskIds[0];
    const incomplete = await t.call('POST', `/v2/annotate/${id}?nextStage=true`, {
      body: { answer: { tools: [BOX] } },
    });
    expect(incomplete.statusCode).toBe(400);
    expect(incomplete.json().errors[0].field).toBe('answer.classifications');

    const submit = await t.call('POST', `/v2/annotate/${id}?nextStage=True`, {
      body: { answer: { objects: [BOX], classifications: [{ schemaId: 'weather', answer: 'sun' }] }, duration: 1200 },
    });
    expect(submit.statusCode).toBe(200);
    expect(submit.json().data.task).toMatchObject({ stage: 'Review', status: 'TODO' });

    const reject = await t.call('POST', `/v2/review/${id}`, { body: { reviewStatus: 'Rejected' } });
    expect(reject.json().data.task).toMatchObject({ stage: 'Label', reviewStatus: 'Rejected' });

    const fix = await t.call('POST', `/v2/annotate/${id}?nextStage=true`, {
      body: { answer: { tools: [BOX, BOX], classifications: [{ schemaId: 'weather', answer: 'sun' }] }, duration: 800 },
    });
    expect(fix.json().data.task.stage).toBe('Review');
    const accept = await t.call('POST', `/v2/review/${id}`, { body: { reviewStatus: 'Accepted' } });
    const task = accept.json().data.task;
    expect(task).toMatchObject({
      stage: 'Complete',
      status: 'Completed',
      reviewStatus: 'Accepted',
      totalDuration: 2000,
    });
    expect(task.answer.tools).toHaveLength(2);
    expect(task.completedBy).toBe('admin@annotary.local');

    const history = (await t.call('GET', `/v2/task/${id}/history`)).json().data;
    expect(history.total).toBe(4);
    expect(history.taskHistory.map((h: { stageId: string; trigger: string }) => `${h.stageId}:${h.trigger}`)).toEqual([
      'Label:submit',
      'Review:review',
      'Label:submit',
      'Review:review',
    ]);
    expect(history.taskHistory[0].duration).toBe(1200);
    const one = await t.call('GET', `/v2/taskHistory/${history.taskHistory[1]._id}`);
    expect(one.json().data.taskHistory.reviewStatus).toBe('Rejected');
    const byTask = await t.call('GET', `/v2/taskHistory/${id}`);
    expect(byTask.json().data.total).toBe(4);

    const done = (await t.call('GET', `/v2/project/${projectId}/tasks?status[eq]=Completed`)).json().data;
    expect(done.tasks.map((x: { _id: string }) => x._id)).toEqual([id]);
  });

  it('requeues the completed task back to Label', async () => {
    const id = taskIds[0];
    const res = await t.call('POST', `/v2/project/${projectId}/requeueTasks`, {
      body: { toStageId: 'Label', filters: { taskIds: [id] }, options: { removeAnnotations: true } },
    });
    expect(res.json().data).toEqual({ modifiedCount: { modified: 1, toStageId: 'Label' } });
    const task = (await t.call('GET', `/v2/task/${id}`)).json().data.task;
    expect(task).toMatchObject({
      stage: 'Label',
      status: 'TODO',
      completedAt: null,
      answer: { tools: [], classifications: [], relations: [] },
    });
  });

  it('assigns another task and hands tasks out with /next', async () => {
    const labeler = `labeler-${engine}@example.com`;
    const key = await t.addUser(labeler);
    await t.call('POST', `/v2/project/${projectId}/assigned`, { body: { assignees: [labeler], role: 'Labeler' } });
    const assign = await t.call('POST', '/v2/task/assign', {
      body: { project: projectId, tasks: [taskIds[1]], stage: 'Label', user: labeler },
    });
    expect(assign.statusCode).toBe(200);
    const mine = await t.call('GET', `/v2/project/${projectId}/tasks`, { key });
    expect(mine.json().data.tasks.map((x: { _id: string }) => x._id)).toEqual([taskIds[1]]);
    const next = await t.call('GET', `/v2/project/${projectId}/next?stageId=Label`, { key });
    expect(next.json().data.task._id).toBe(taskIds[1]);
    const wrongStage = await t.call('POST', '/v2/task/assign', {
      body: { project: projectId, tasks: [taskIds[1]], stage: 'Review', user: labeler },
    });
    expect(wrongStage.statusCode).toBe(400);
    expect(wrongStage.json().errors[0].field).toBe('tasks[0]');
    // A Labeler cannot review, nor read someone else's task.
    expect((await t.call('GET', `/v2/task/${taskIds[2]}`, { key })).statusCode).toBe(403);
    expect((await t.call('GET', `/v2/task/${taskIds[1]}`, { key })).statusCode).toBe(200);
  });

  it('refuses a bad import and writes nothing', async () => {
    const assets = Array.from({ length: 10_000 }, (_, i) => ({ data: `https://cdn.example.com/bulk/${i}.jpg` }));
    assets[7777] = { data: 'ftp://nope/x.jpg' };
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, { body: { assets } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('assets[7777].data');
    const count = await t.store.db
      .selectFrom('assets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(3);
  });
});
