import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Review'] },
  { id: 'Review', type: 'Review', name: 'Review', next: ['Complete', 'Label'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];

interface Task {
  _id: string;
  stage: string;
  assignee: string | null;
}

describe.each(ENGINES)('skipping a Label task on %s', (engine) => {
  let t: TestApp;
  const ann = `skip-ann-${engine}@example.com`;
  const bo = `skip-bo-${engine}@example.com`;
  let annKey: string;
  let boKey: string;

  /** A project with two tasks waiting in Label and the two labelers as members. */
  async function project(settings: Record<string, unknown>): Promise<{ pid: string; tasks: string[] }> {
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Skips' } })).json().data.project._id as string;
    const upd = await t.call('POST', `/v2/project/${pid}`, { body: { stages: STAGES, ...settings } });
    expect(upd.statusCode, upd.body).toBe(200);
    await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [ann, bo], role: 'Labeler' } });
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/a.jpg' }, { data: 'https://cdn.example.com/b.jpg' }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    return { pid, tasks: res.json().data.assets.map((a: { taskId: string }) => a.taskId) };
  }
  const next = async (pid: string, key: string) =>
    (await t.call('GET', `/v2/project/${pid}/next?stageId=Label`, { key })).json().data.task as Task | null;
  const skip = (id: string, key: string) => t.call('POST', `/v2/task/${id}/skip`, { key });

  beforeAll(async () => {
    t = await makeTestApp(engine);
    annKey = await t.addUser(ann);
    boKey = await t.addUser(bo);
  });
  afterAll(() => t.close());

  it('answers 400 when the project has skipping off', async () => {
    const { pid } = await project({});
    const mine = await next(pid, annKey);
    const res = await skip(mine!._id, annKey);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'fail', message: 'skipping is off for this project' });
  });

  it('keeps the task assigned, records the skip and hands the other task first', async () => {
    const { pid, tasks } = await project({ taskSkipEnabled: true });
    const first = await next(pid, annKey);
    expect(first?._id).toBe(tasks[0]);
    expect((await skip(first!._id, boKey)).statusCode).toBe(403);

    const res = await skip(first!._id, annKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.task).toMatchObject({ _id: tasks[0], stage: 'Label', assignee: ann });
    const history = (await t.call('GET', `/v2/task/${tasks[0]}/history`)).json().data.taskHistory;
    expect(history).toMatchObject([{ stageId: 'Label', isSkipped: true, completedBy: ann, trigger: 'skip' }]);

    // The skipped task is still Ann's, but /next gives her the other one; then, with nothing
    // else waiting, the skipped one again.
    expect((await next(pid, annKey))?._id).toBe(tasks[1]);
    await t.call('POST', `/v2/annotate/${tasks[1]}?nextStage=true`, { key: annKey, body: { answer: {} } });
    expect((await next(pid, annKey))?._id).toBe(tasks[0]);
    // Bo cannot take it: it stays assigned to Ann.
    expect(await next(pid, boKey)).toBeNull();
  });

  it('with unassignSkippedTask, unassigns the task so someone else takes it', async () => {
    const { pid, tasks } = await project({ taskSkipEnabled: true, unassignSkippedTask: true });
    const first = await next(pid, annKey);
    const res = await skip(first!._id, annKey);
    expect(res.json().data.task).toMatchObject({ _id: tasks[0], stage: 'Label', assignee: null });
    expect((await next(pid, annKey))?._id).toBe(tasks[1]);
    expect((await next(pid, boKey))?._id).toBe(tasks[0]);
  });

  it('answers 409 outside a Label stage', async () => {
    const { pid, tasks } = await project({ taskSkipEnabled: true });
    await next(pid, annKey);
    await t.call('POST', `/v2/annotate/${tasks[0]}?nextStage=true`, { key: annKey, body: { answer: {} } });
    const moved = (await t.call('GET', `/v2/task/${tasks[0]}`)).json().data.task as Task;
    expect(moved.stage).toBe('Review');
    await t.call('POST', '/v2/task/assign', { body: { project: pid, tasks: [tasks[0]], stage: 'Review', user: ann } });
    const res = await skip(tasks[0]!, annKey);
    expect(res.statusCode).toBe(409);
    expect(res.json().status).toBe('fail');
  });
});
