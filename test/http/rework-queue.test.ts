import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Review'], rememberAssignee: true },
  { id: 'Review', type: 'Review', name: 'Review', next: ['Complete', 'Label'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];

describe.each(ENGINES)('a rejected task in the labeler queue on %s', (engine) => {
  let t: TestApp;
  const ann = `rework-ann-${engine}@example.com`;
  let annKey: string;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    annKey = await t.addUser(ann);
  });
  afterAll(() => t.close());

  const importOne = async (pid: string, name: string) => {
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: `https://cdn.example.com/${name}.jpg` }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.assets[0].taskId as string;
  };
  const next = async (pid: string, stage: string, key?: string) =>
    (await t.call('GET', `/v2/project/${pid}/next?stageId=${stage}`, key ? { key } : {})).json().data.task as {
      _id: string;
    } | null;

  it('comes before an older task the labeler holds', async () => {
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Rework' } })).json().data.project._id as string;
    expect((await t.call('POST', `/v2/project/${pid}`, { body: { stages: STAGES } })).statusCode).toBe(200);
    await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [ann], role: 'Labeler' } });
    const older = await importOne(pid, 'older');
    const newer = await importOne(pid, 'newer');
    // Ann labels the newer task first, then takes the older one and holds it.
    const assign = await t.call('POST', '/v2/task/assign', {
      body: { project: pid, tasks: [newer], stage: 'Label', user: ann },
    });
    expect(assign.statusCode, assign.body).toBe(200);
    expect((await next(pid, 'Label', annKey))?._id).toBe(newer);
    const submit = await t.call('POST', `/v2/annotate/${newer}?nextStage=true`, { key: annKey, body: { answer: {} } });
    expect(submit.statusCode, submit.body).toBe(200);
    expect((await next(pid, 'Label', annKey))?._id).toBe(older);

    expect((await next(pid, 'Review'))?._id).toBe(newer);
    const reject = await t.call('POST', `/v2/review/${newer}`, { body: { reviewStatus: 'Rejected' } });
    expect(reject.statusCode, reject.body).toBe(200);
    expect(reject.json().data.task).toMatchObject({ stage: 'Label', assignee: ann });

    // Both are Ann's now; the one sent back comes first, then the one she held.
    expect((await next(pid, 'Label', annKey))?._id).toBe(newer);
    await t.call('POST', `/v2/annotate/${newer}?nextStage=true`, { key: annKey, body: { answer: {} } });
    expect((await next(pid, 'Label', annKey))?._id).toBe(older);
  });
});
