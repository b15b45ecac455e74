import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Labeling', next: ['Review'] },
  { id: 'Review', type: 'Review', name: 'Check', next: ['Complete', 'Label'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];

interface Task {
  _id: string;
  stage: string;
  assignee: string | null;
  updatedAt: string;
  answer?: unknown;
  isDraft?: boolean;
}

interface Position {
  stageId: string;
  position: number;
  total: number | null;
  done: number;
  held: number;
  waiting: number | null;
  capped: boolean;
}

describe.each(ENGINES)('releasing, taking and the queue position of a task on %s', (engine) => {
  let t: TestApp;
  const ann = `release-ann-${engine}@example.com`;
  const bo = `release-bo-${engine}@example.com`;
  const rev = `release-rev-${engine}@example.com`;
  const stranger = `release-stranger-${engine}@example.com`;
  let annKey: string;
  let boKey: string;
  let revKey: string;
  let strangerKey: string;

  /** A project with `count` tasks waiting in Label; Ann and Bo Labelers, Rev a Reviewer. */
  async function project(count: number, settings: Record<string, unknown> = {}) {
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Release' } })).json().data.project._id as string;
    const upd = await t.call('POST', `/v2/project/${pid}`, { body: { stages: STAGES, ...settings } });
    expect(upd.statusCode, upd.body).toBe(200);
    await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [ann, bo], role: 'Labeler' } });
    await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [rev], role: 'Reviewer' } });
    const assets = Array.from({ length: count }, (_, i) => ({ data: `https://cdn.example.com/${i}.jpg` }));
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, { body: { assets } });
    expect(res.statusCode, res.body).toBe(201);
    return { pid, tasks: res.json().data.assets.map((a: { taskId: string }) => a.taskId) as string[] };
  }
  const next = async (pid: string, key: string, stageId = 'Label') =>
    (await t.call('GET', `/v2/project/${pid}/next?stageId=${stageId}`, { key })).json().data.task as Task | null;
  const release = (id: string, key: string, body?: Record<string, unknown>) =>
    t.call('POST', `/v2/task/${id}/release`, { key, ...(body ? { body } : {}) });
  const take = (id: string, key: string) => t.call('POST', `/v2/task/${id}/take`, { key });
  const position = async (id: string, key: string, since?: string) => {
    const q = since === undefined ? '' : `?since=${encodeURIComponent(since)}`;
    const res = await t.call('GET', `/v2/task/${id}/position${q}`, { key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Position;
  };
  const submit = async (id: string, key: string) => {
    const res = await t.call('POST', `/v2/annotate/${id}?nextStage=true`, { key, body: { answer: {} } });
    expect(res.statusCode, res.body).toBe(200);
  };

  beforeAll(async () => {
    t = await makeTestApp(engine);
    annKey = await t.addUser(ann);
    boKey = await t.addUser(bo);
    revKey = await t.addUser(rev);
    strangerKey = await t.addUser(stranger);
  });
  afterAll(() => t.close());

  it('gives a held task back to the stage with its draft, so the next caller of /next gets it', async () => {
    const { pid, tasks } = await project(2);
    const mine = await next(pid, annKey);
    expect(mine?._id).toBe(tasks[0]);
    const draft = { tools: [], classifications: [], relations: [] };
    await t.call('POST', `/v2/annotate/${mine!._id}`, { key: annKey, body: { answer: draft, duration: 5000 } });

    // Only the holder may release it, whatever the role.
    for (const key of [boKey, revKey, undefined]) {
      const res = await release(mine!._id, key as string);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toMatchObject({ status: 'fail' });
    }
    const res = await release(mine!._id, annKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.task).toMatchObject({ _id: tasks[0], stage: 'Label', assignee: null, isDraft: true });
    // Ann no longer reads it; Bo gets it (the oldest free task) from /next, the draft with it.
    expect((await t.call('GET', `/v2/task/${tasks[0]}`, { key: annKey })).statusCode).toBe(403);
    const bos = await next(pid, boKey);
    expect(bos).toMatchObject({ _id: tasks[0], assignee: bo });
    const read = (await t.call('GET', `/v2/task/${tasks[0]}`)).json().data.task;
    expect(read).toMatchObject({ assignee: bo, duration: 5000, isDraft: true });
    // Released again by Ann: it is Bo's now.
    expect((await release(tasks[0]!, annKey)).statusCode).toBe(403);
  });

  it('releases with updatedAt only while the task is unchanged, and take renews it', async () => {
    const { pid } = await project(1);
    const mine = await next(pid, annKey);
    const seen = mine!.updatedAt;
    // The editor reopened the task (take) before its release on leaving arrived: the release is refused.
    const taken = await take(mine!._id, annKey);
    expect(taken.statusCode, taken.body).toBe(200);
    expect(taken.json().data.task.assignee).toBe(ann);
    expect(taken.json().data.task.updatedAt).not.toBe(seen);
    const late = await release(mine!._id, annKey, { updatedAt: seen });
    expect(late.statusCode, late.body).toBe(409);
    expect((await t.call('GET', `/v2/task/${mine!._id}`)).json().data.task.assignee).toBe(ann);
    // With the task's current updatedAt it goes.
    const current = taken.json().data.task.updatedAt as string;
    expect((await release(mine!._id, annKey, { updatedAt: current })).statusCode).toBe(200);
    expect((await t.call('GET', `/v2/task/${mine!._id}`)).json().data.task.assignee).toBeNull();
    // A bad updatedAt names the field; nothing changes.
    const bad = await release(mine!._id, annKey, { updatedAt: 'yesterday-ish' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: 'fail', errors: [expect.objectContaining({ field: 'updatedAt' })] });
  });

  it('takes a named free task back after a release, refuses one someone else holds', async () => {
    const { pid, tasks } = await project(2);
    const mine = await next(pid, annKey);
    expect((await release(mine!._id, annKey)).statusCode).toBe(200);
    const back = await take(mine!._id, annKey);
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().data.task).toMatchObject({ _id: mine!._id, assignee: ann });
    // Bo cannot take Ann's task, nor a stranger anything (the task does not exist for them).
    const bos = await take(mine!._id, boKey);
    expect(bos.statusCode).toBe(409);
    expect(bos.json()).toMatchObject({ status: 'fail', message: expect.stringContaining('not free') });
    expect((await take(tasks[1]!, strangerKey)).statusCode).toBe(404);
    expect((await take('000000000000000000000000', annKey)).statusCode).toBe(404);
    // A Labeler cannot take from a Review stage; the submitted task moved on and is no longer free.
    await submit(mine!._id, annKey);
    expect((await take(mine!._id, annKey)).statusCode).toBe(403);
    expect((await take(mine!._id, revKey)).statusCode).toBe(200);
    expect((await release(mine!._id, revKey)).statusCode).toBe(200);
    // Each release and take is in the audit log once; the refused takes wrote nothing.
    const audit = await t.call('GET', `/v2/organization/${t.orgId}/audit?limit=1000`);
    expect(audit.statusCode, audit.body).toBe(200);
    const records = (audit.json().data.records as { operation: string; target: { id: string }; fields: string[] }[])
      .filter((r) => r.target.id === mine!._id && (r.operation === 'task.release' || r.operation === 'task.take'))
      .reverse()
      .map((r) => [r.operation, r.fields.join(',')]);
    expect(records).toEqual([
      ['task.release', 'assignee'],
      ['task.take', 'assignee'],
      ['task.take', 'assignee'],
      ['task.release', 'assignee'],
    ]);
  });

  it('says where the caller stands: Task 3 of 5 after two submits', async () => {
    const { pid } = await project(5);
    const since = new Date(Date.now() - 1000).toISOString();
    const first = await next(pid, annKey);
    expect(await position(first!._id, annKey, since)).toEqual({
      stageId: 'Label',
      stageName: 'Labeling',
      position: 1,
      total: 5,
      done: 0,
      held: 0,
      waiting: 4,
      capped: false,
    });
    await submit(first!._id, annKey);
    // Bo takes one: it no longer waits for Ann.
    await next(pid, boKey);
    const second = await next(pid, annKey);
    await submit(second!._id, annKey);
    const third = await next(pid, annKey);
    expect(await position(third!._id, annKey, since)).toMatchObject({ position: 3, total: 4, done: 2, waiting: 1 });
    // Without since nothing counts as done; from now on neither.
    expect(await position(third!._id, annKey)).toMatchObject({ position: 1, total: 2, done: 0 });
    expect(await position(third!._id, annKey, new Date(Date.now() + 60_000).toISOString())).toMatchObject({
      position: 1,
    });
    // Tasks a manager assigned to Ann count as hers.
    const free = (await t.call('GET', `/v2/project/${pid}/tasks?stage=Label&limit=10`)).json().data.tasks as Task[];
    const unheld = free.find((x) => x.assignee === null)!;
    await t.call('POST', '/v2/task/assign', { body: { project: pid, tasks: [unheld._id], stage: 'Label', user: ann } });
    expect(await position(third!._id, annKey, since)).toMatchObject({ position: 3, total: 4, held: 1, waiting: 0 });
    // With counts hidden from Labelers: no total for Ann, the Manager keeps it.
    await t.call('POST', `/v2/project/${pid}`, { body: { queueCountsEnabled: false } });
    expect(await position(third!._id, annKey, since)).toMatchObject({ position: 3, total: null, waiting: null });
    const bad = await t.call('GET', `/v2/task/${third!._id}/position?since=soon`, { key: annKey });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ errors: [expect.objectContaining({ field: 'since' })] });
  });

  it('answers 409 for a task in a stage nobody holds tasks in, 404 for a non-member', async () => {
    const { pid } = await project(1);
    const mine = await next(pid, annKey);
    await submit(mine!._id, annKey);
    const reviewed = await t.call('POST', `/v2/review/${mine!._id}`, {
      key: revKey,
      body: { reviewStatus: 'Accepted' },
    });
    expect(reviewed.statusCode, reviewed.body).toBe(200);
    for (const res of [
      await t.call('GET', `/v2/task/${mine!._id}/position`),
      await t.call('POST', `/v2/task/${mine!._id}/take`),
    ]) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({ status: 'fail', message: expect.stringContaining('Complete') });
    }
    expect((await t.call('GET', `/v2/task/${mine!._id}/position`, { key: strangerKey })).statusCode).toBe(404);
    expect((await release(mine!._id, strangerKey)).statusCode).toBe(404);
  });
});
