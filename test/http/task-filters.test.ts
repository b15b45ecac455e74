import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * The task list `filter` fields and operators the widely used client sends: createdBy,
 * updatedBy, duration, totalDuration, openIssuesCount, isDraft, isSkipped, isBenchmark,
 * `$regex`, `$exists`, and reviewStatus `Todo` for tasks never reviewed.
 */

const STAGES = [
  { id: 'Start', type: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Review'] },
  { id: 'Review', type: 'Review', name: 'Review', next: ['Complete', 'Label'] },
  { id: 'Complete', type: 'Complete' },
];

describe.each(ENGINES)('task list filters on %s', (engine) => {
  let t: TestApp;
  let pid: string;
  /** Task ids by external id. */
  const ids: Record<string, string> = {};
  const lead = `lead-filters-${engine}@example.com`;

  const select = async (filter: unknown): Promise<string[]> => {
    const q = encodeURIComponent(JSON.stringify(filter));
    const res = await t.call('GET', `/v2/project/${pid}/tasks?limit=100&sort=externalId&filter=${q}`);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { tasks: { externalId: string }[]; total: number };
    expect(data.total).toBe(data.tasks.length);
    return data.tasks.map((x) => x.externalId);
  };
  const refused = async (filter: unknown): Promise<string> => {
    const q = encodeURIComponent(JSON.stringify(filter));
    const res = await t.call('GET', `/v2/project/${pid}/tasks?filter=${q}`);
    expect(res.statusCode, res.body).toBe(400);
    return res.json().errors[0].field as string;
  };

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Filters' } })).json().data.project._id;
    expect((await t.call('POST', `/v2/project/${pid}`, { body: { stages: STAGES } })).statusCode).toBe(200);
    const leadKey = await t.addUser(lead);
    await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [lead], role: 'Lead' } });
    const names = ['cam1-001.jpg', 'cam1-002.jpg', 'cam2-001.jpg', 'CAM3-010.jpg'];
    const mine = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: names.map((n) => ({ data: `https://cdn.example.com/${n}` })) },
    });
    const theirs = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: [{ data: 'https://cdn.example.com/lead-1.jpg' }, { data: 'https://cdn.example.com/lead-2.jpg' }],
      },
      key: leadKey,
    });
    for (const res of [mine, theirs]) {
      expect(res.statusCode, res.body).toBe(201);
      for (const a of res.json().data.assets as { externalId: string; taskId: string }[]) ids[a.externalId] = a.taskId;
    }
    // cam1-001: submitted (500 ms) and accepted in Review. cam1-002: saved, not submitted (a draft).
    const submit = await t.call('POST', `/v2/annotate/${ids['cam1-001.jpg']}?nextStage=true`, {
      body: { answer: { tools: [] }, duration: 500 },
    });
    expect(submit.json().data.task.stage).toBe('Review');
    const accept = await t.call('POST', `/v2/review/${ids['cam1-001.jpg']}`, { body: { reviewStatus: 'Accepted' } });
    expect(accept.json().data.task).toMatchObject({ stage: 'Complete', reviewStatus: 'Accepted' });
    const save = await t.call('POST', `/v2/annotate/${ids['cam1-002.jpg']}`, {
      body: { answer: { tools: [] }, duration: 200 },
      key: leadKey,
    });
    expect(save.json().data.task).toMatchObject({ isDraft: true, updatedBy: lead });
    // cam2-001: an open issue; lead-1: assigned.
    const issue = await t.call('POST', '/v2/issues', { body: { content: 'blurry', labelTask: ids['cam2-001.jpg'] } });
    expect(issue.statusCode).toBe(201);
    await t.call('POST', '/v2/task/assign', {
      body: { project: pid, tasks: [ids['lead-1.jpg']], stage: 'Label', user: lead },
    });
  });
  afterAll(() => t.close());

  it('filters on who created and who last changed a task', async () => {
    expect(await select({ createdBy: lead })).toEqual(['lead-1.jpg', 'lead-2.jpg']);
    expect(await select({ createdBy: { $ne: lead } })).toEqual([
      'CAM3-010.jpg',
      'cam1-001.jpg',
      'cam1-002.jpg',
      'cam2-001.jpg',
    ]);
    // An import sets updatedBy to the importer; the owner's assignment of lead-1 changed it.
    expect(await select({ updatedBy: lead })).toEqual(['cam1-002.jpg', 'lead-2.jpg']);
    expect(await select({ updatedBy: { $nin: [lead] }, createdBy: { $in: [lead] } })).toEqual(['lead-1.jpg']);
    expect((await select({ updatedBy: { $exists: true } })).length).toBe(6);
  });

  it('filters on durations, open issues and the draft, skipped and benchmark flags', async () => {
    // cam1-001 left Label with 500 ms: its duration in Complete starts again at 0.
    expect(await select({ totalDuration: { $gte: 500 } })).toEqual(['cam1-001.jpg']);
    expect(await select({ duration: { $gt: 0 } })).toEqual(['cam1-002.jpg']);
    expect(await select({ openIssuesCount: { $gte: 1 } })).toEqual(['cam2-001.jpg']);
    expect(await select({ isDraft: true })).toEqual(['cam1-002.jpg']);
    expect((await select({ isDraft: { $ne: true } })).length).toBe(5);
    expect((await select({ isSkipped: false })).length).toBe(6);
    expect(await select({ isSkipped: true })).toEqual([]);
    expect(await select({ isBenchmark: true })).toEqual([]);
    expect(await refused({ isDraft: 'yes' })).toBe('filter.isDraft');
    expect(await refused({ isDraft: { $gt: true } })).toBe('filter.isDraft.$gt');
    // A draft stops being one when the task moves on.
    const submit = await t.call('POST', `/v2/annotate/${ids['cam1-002.jpg']}?nextStage=true`, {
      body: { answer: { tools: [] } },
    });
    expect(submit.json().data.task).toMatchObject({ stage: 'Review', isDraft: false });
    expect(await select({ isDraft: true })).toEqual([]);
    await t.call('POST', `/v2/review/${ids['cam1-002.jpg']}`, { body: { reviewStatus: 'Rejected' } });
  });

  it('matches reviewStatus Todo for tasks never reviewed', async () => {
    expect(await select({ reviewStatus: 'Accepted' })).toEqual(['cam1-001.jpg']);
    expect(await select({ reviewStatus: 'Todo' })).toEqual([
      'CAM3-010.jpg',
      'cam2-001.jpg',
      'lead-1.jpg',
      'lead-2.jpg',
    ]);
    expect(await select({ reviewStatus: { $in: ['Todo', 'Rejected'] } })).toEqual([
      'CAM3-010.jpg',
      'cam1-002.jpg',
      'cam2-001.jpg',
      'lead-1.jpg',
      'lead-2.jpg',
    ]);
    expect(await select({ reviewStatus: { $nin: ['Todo'] } })).toEqual(['cam1-001.jpg', 'cam1-002.jpg']);
  });

  it('takes $regex (prefix, anywhere, case-insensitive) and $exists', async () => {
    expect(await select({ externalId: { $regex: '^cam1-' } })).toEqual(['cam1-001.jpg', 'cam1-002.jpg']);
    expect(await select({ externalId: { $regex: '^cam1\\-00' } })).toEqual(['cam1-001.jpg', 'cam1-002.jpg']);
    expect(await select({ externalId: { $regex: '001' } })).toEqual(['cam1-001.jpg', 'cam2-001.jpg']);
    expect(await select({ externalId: { $regex: '^cam[13]-0' } })).toEqual(['cam1-001.jpg', 'cam1-002.jpg']);
    expect(await select({ externalId: { $regex: '^cam3', $options: 'i' } })).toEqual(['CAM3-010.jpg']);
    expect(await select({ externalId: { $regex: '^cam3' } })).toEqual([]);
    expect(await select({ createdBy: { $regex: '^lead-' } })).toEqual(['lead-1.jpg', 'lead-2.jpg']);
    expect(await select({ assignee: { $exists: true } })).toEqual(['lead-1.jpg']);
    expect((await select({ assignee: { $exists: false } })).length).toBe(5);
    expect(await refused({ externalId: { $regex: '(' } })).toBe('filter.externalId.$regex');
    expect(await refused({ externalId: { $regex: '(a+)+$' } })).toBe('filter.externalId.$regex');
    expect(await refused({ priority: { $regex: '^1' } })).toBe('filter.priority.$regex');
    expect(await refused({ externalId: { $regex: 'a', $options: 'x' } })).toBe('filter.externalId.$options');
    expect(await refused({ assignee: { $exists: 'yes' } })).toBe('filter.assignee.$exists');
  });
});
