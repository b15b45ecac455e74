import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * POST /performance/{projectId}: per person and per stage, over an interval and batches, from
 * the task history and the issues.
 */

const STAGES = [
  { id: 'Start', type: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Labeling', next: ['Review'] },
  { id: 'Review', type: 'Review', name: 'QA', next: ['Complete', 'Label'] },
  { id: 'Complete', type: 'Complete' },
];

describe.each(ENGINES)('performance report on %s', (engine) => {
  let t: TestApp;
  let pid: string;
  let tasks: string[];
  let labelerKey: string;
  const labeler = `ann-perf-${engine}@example.com`;
  const owner = 'admin@annotary.local';
  const clock = manualClock('2026-01-05T09:00:00.000Z');

  const report = async (body: unknown, key?: string) => {
    const res = await t.call('POST', `/v2/performance/${pid}`, { body, ...(key ? { key } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { performance: Record<string, unknown>[]; total: number; interval: unknown };
  };

  beforeAll(async () => {
    t = await makeTestApp(engine, { clock });
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Perf' } })).json().data.project._id;
    await t.call('POST', `/v2/project/${pid}`, { body: { stages: STAGES } });
    await t.call('POST', `/v2/batches/${pid}`, { body: { batches: 'night' } });
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: [
          { data: 'https://cdn.example.com/p1.jpg', batches: ['night'] },
          { data: 'https://cdn.example.com/p2.jpg' },
          { data: 'https://cdn.example.com/p3.jpg' },
        ],
      },
    });
    tasks = res.json().data.assets.map((a: { taskId: string }) => a.taskId);
    labelerKey = await t.addUser(labeler);
    await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [labeler], role: 'Labeler' } });
    await t.call('POST', '/v2/task/assign', { body: { project: pid, tasks, stage: 'Label', user: labeler } });
    const submit = (id: string, duration: number) =>
      t.call('POST', `/v2/annotate/${id}?nextStage=true`, {
        body: { answer: { tools: [] }, duration },
        key: labelerKey,
      });
    // Day 1: the labeler submits p1 (1000 ms) and p2 (500 ms); the owner accepts p1, rejects p2.
    expect((await submit(tasks[0] as string, 1000)).statusCode).toBe(200);
    expect((await submit(tasks[1] as string, 500)).statusCode).toBe(200);
    await t.call('POST', `/v2/annotate/${tasks[0]}`, { body: { answer: { tools: [] }, duration: 200 } });
    await t.call('POST', `/v2/review/${tasks[0]}`, { body: { reviewStatus: 'Accepted' } });
    await t.call('POST', `/v2/review/${tasks[1]}`, { body: { reviewStatus: 'Rejected' } });
    await t.call('POST', '/v2/issues', { body: { content: 'too loose', labelTask: tasks[1] } });
    // Day 3: the labeler opens an issue on p3 (in Label) and submits it (300 ms).
    clock.set('2026-01-07T09:00:00.000Z');
    const issue = await t.call('POST', '/v2/issues', {
      body: { content: 'blurry', labelTask: tasks[2] },
      key: labelerKey,
    });
    expect(issue.statusCode).toBe(201);
    expect((await submit(tasks[2] as string, 300)).statusCode).toBe(200);
    // An admin sends p3 back to Label: a stage closed in their name, but no work of theirs.
    const adminKey = await t.addUser(`admin-perf-${engine}@example.com`, 'admin');
    const requeue = await t.call('POST', `/v2/project/${pid}/requeueTasks`, {
      body: { toStageId: 'Label', filters: { taskIds: [tasks[2]] } },
      key: adminKey,
    });
    expect(requeue.json().data.modifiedCount.modified, requeue.body).toBe(1);
  });
  afterAll(() => t.close());

  it('answers per person and per stage over all time, with no row for bookkeeping alone', async () => {
    const all = await report({});
    expect(all.interval).toEqual({ from: null, to: null });
    const zero = { submitted: 0, reviewed: 0, accepted: 0, rejected: 0, timeSpent: 0, issuesRaised: 0 };
    const label = { stageId: 'Label', stageName: 'Labeling', stageType: 'Label' };
    expect(all.performance).toEqual([
      // The owner's issue on p2 was opened after the rejection sent p2 back to Label.
      { ...zero, user: owner, ...label, issuesRaised: 1 },
      {
        ...zero,
        user: owner,
        stageId: 'Review',
        stageName: 'QA',
        stageType: 'Review',
        reviewed: 2,
        accepted: 1,
        rejected: 1,
        timeSpent: 200,
      },
      { ...zero, user: labeler, ...label, submitted: 3, timeSpent: 1800, issuesRaised: 1 },
    ]);
    expect(all.total).toBe(3);
  });

  it('limits to the interval and to batches (by name or id)', async () => {
    const day1 = await report({ interval: ['2026-01-05', '2026-01-06T00:00:00Z'] });
    expect(day1.interval).toEqual({ from: '2026-01-05T00:00:00.000Z', to: '2026-01-06T00:00:00.000Z' });
    expect(day1.performance.map((r) => [r.user, r.stageId, r.submitted, r.timeSpent, r.issuesRaised])).toEqual([
      [owner, 'Label', 0, 0, 1],
      [owner, 'Review', 0, 200, 0],
      [labeler, 'Label', 2, 1500, 0],
    ]);
    const night = await report({ batches: ['night'] });
    expect(night.performance.map((r) => [r.user, r.stageId, r.submitted, r.accepted, r.rejected])).toEqual([
      [owner, 'Review', 0, 1, 0],
      [labeler, 'Label', 1, 0, 0],
    ]);
    const batchId = (await t.call('GET', `/v2/batches/${pid}`)).json().data.batches[0]._id as string;
    expect((await report({ batches: [batchId] })).performance).toEqual(night.performance);
    expect((await report({ interval: ['2027-01-01', '2027-02-01'] })).performance).toEqual([]);
  });

  it('answers every interval and batch as a count of the history entries one by one', async () => {
    // More work spread over seconds, minutes and hours: the report reads whole hours and minutes
    // from the kept counts and the seconds at its ends from the history.
    const more = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: Array.from({ length: 6 }, (_, i) => ({
          data: `https://cdn.example.com/q${i}.jpg`,
          ...(i % 2 ? { batches: ['night'] } : {}),
        })),
      },
    });
    const extra = more.json().data.assets.map((a: { taskId: string }) => a.taskId) as string[];
    for (const [i, id] of extra.entries()) {
      clock.set(new Date(Date.parse('2026-01-08T10:58:40.000Z') + i * 47_500).toISOString());
      expect(
        (
          await t.call('POST', `/v2/annotate/${id}?nextStage=true`, {
            body: { answer: { tools: [] }, duration: 100 + i },
          })
        ).statusCode,
      ).toBe(200);
      clock.set(new Date(Date.parse('2026-01-08T11:59:50.000Z') + i * 3_700).toISOString());
      await t.call('POST', `/v2/review/${id}`, { body: { reviewStatus: i % 3 ? 'Accepted' : 'Rejected' } });
    }
    const entries = await t.store.db.selectFrom('task_history').selectAll().where('project_id', '=', pid).execute();
    const links = await t.store.db.selectFrom('asset_batches').selectAll().execute();
    const night = (await t.call('GET', `/v2/batches/${pid}`)).json().data.batches[0]._id as string;
    /** The report's work columns counted entry by entry, as the report defines them. */
    const bruteForce = (from: string | undefined, to: string | undefined, batch: boolean) => {
      const rows = new Map<string, Record<string, unknown>>();
      for (const e of entries) {
        if (e.completed_by === null || !(e.trigger === 'submit' || e.trigger === 'review' || e.duration > 0)) continue;
        if ((from !== undefined && e.completed_at < from) || (to !== undefined && e.completed_at >= to)) continue;
        if (batch && !links.some((l) => l.asset_id === e.asset_id && l.batch_id === night)) continue;
        const key = `${e.completed_by} ${e.stage_id}`;
        const r = rows.get(key) ?? {
          user: e.completed_by,
          stageId: e.stage_id,
          submitted: 0,
          reviewed: 0,
          accepted: 0,
          rejected: 0,
          timeSpent: 0,
        };
        rows.set(key, r);
        const add = (field: string, n: number) => (r[field] = (r[field] as number) + n);
        add('submitted', e.trigger === 'submit' ? 1 : 0);
        add('reviewed', e.trigger === 'review' ? 1 : 0);
        add('accepted', e.review_status === 'Accepted' ? 1 : 0);
        add('rejected', e.review_status === 'Rejected' ? 1 : 0);
        add('timeSpent', e.duration);
      }
      return [...rows.values()].sort((a, b) => (`${a.user} ${a.stageId}` < `${b.user} ${b.stageId}` ? -1 : 1));
    };
    const work = (rows: Record<string, unknown>[]) =>
      rows
        .filter((r) => r.submitted || r.reviewed || r.accepted || r.rejected || r.timeSpent)
        .map(({ user, stageId, submitted, reviewed, accepted, rejected, timeSpent }) => ({
          user,
          stageId,
          submitted,
          reviewed,
          accepted,
          rejected,
          timeSpent,
        }))
        .sort((a, b) => (`${a.user} ${a.stageId}` < `${b.user} ${b.stageId}` ? -1 : 1));
    const intervals: [string | undefined, string | undefined][] = [
      [undefined, undefined],
      ['2026-01-08T10:59:21.000Z', '2026-01-08T12:00:07.300Z'],
      ['2026-01-08T11:00:00.000Z', '2026-01-08T12:00:00.000Z'],
      ['2026-01-08T12:00:01.000Z', '2026-01-08T12:00:09.000Z'],
      ['2026-01-05T09:00:00.000Z', '2026-01-08T11:01:00.000Z'],
    ];
    let compared = 0;
    for (const [from, to] of intervals) {
      for (const batch of [false, true]) {
        const body = { ...(from ? { interval: [from, to] } : {}), ...(batch ? { batches: ['night'] } : {}) };
        const expected = bruteForce(from, to, batch);
        expect(work((await report(body)).performance), JSON.stringify(body)).toEqual(expected);
        compared += expected.length;
      }
    }
    expect(compared).toBeGreaterThan(10);
  });

  it('refuses bad input naming the field, and needs a role that reads all tasks', async () => {
    const bad = async (body: unknown, field: string) => {
      const res = await t.call('POST', `/v2/performance/${pid}`, { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    };
    await bad({ interval: ['yesterday', '2026-01-06'] }, 'interval[0]');
    await bad({ interval: ['2026-01-06', '2026-01-01'] }, 'interval');
    await bad({ interval: ['2026-01-06'] }, 'interval');
    await bad({ batches: ['night', 'nope'] }, 'batches[1]');
    const res = await t.call('POST', `/v2/performance/${pid}`, { body: {}, key: labelerKey });
    expect(res.statusCode).toBe(403);
    expect((await t.call('POST', '/v2/performance/0123456789abcdef01234567', { body: {} })).statusCode).toBe(404);
  });
});
