import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import * as workCounts from '../../src/store/migrations/029-work-counts.js';
import type { PerformanceScope, WorkFigures } from '../../src/store/repositories/performance.repository.js';
import { reviewDays, type ReviewDay } from '../../src/store/repositories/quality.repository.js';
import {
  countableBatches,
  countedWorkFigures,
  foldGatheredWorkCounts,
} from '../../src/store/repositories/work-count.repository.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';
import { historyReviewDays, historyWorkFigures } from '../helpers/work-reference.js';

/*
 * The Quality page's review rejections and the performance report come from the work the
 * database counts per project, batch, hour or minute, person, stage and trigger (migration 029),
 * and from the history itself for the seconds at the interval's ends. Every reading must equal a
 * count of the history's entries themselves, after reviews made through the API across minutes,
 * hours and days, assets joining batches, history removed by a requeue, the migration's backfill
 * and (PostgreSQL) the folding of delta rows.
 */

// Rejected tasks go back to Label and are reviewed again.
const STAGES = [
  { id: 'Start', type: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', next: ['Review'] },
  { id: 'Review', type: 'Review', next: ['Done', 'Label'] },
  { id: 'Done', type: 'Complete' },
];
const START = '2026-05-04T22:10:00.000Z';
const MINUTE = 60_000;
const at = (minutes: number) => new Date(Date.parse(START) + minutes * MINUTE).toISOString();

const byUserStage = (rows: WorkFigures[]) =>
  [...rows].sort((a, b) => (a.user + a.stage_id < b.user + b.stage_id ? -1 : 1));
const sorted = (days: ReviewDay[]) =>
  [...days].sort((a, b) =>
    a.reviewer + a.day < b.reviewer + b.day ? -1 : a.reviewer + a.day > b.reviewer + b.day ? 1 : 0,
  );
const decisions = (days: ReviewDay[]) => days.reduce((n, d) => n + d.accepted + d.rejected, 0);

describe.each(ENGINES)('kept review decision counts on %s', (engine) => {
  let t: TestApp;
  let pid: string;
  let reviewerKey: string;
  let batchA: string;
  let batchB: string;
  let batchC: string;
  let unbatched: { _id: string; taskId: string }[];
  let firstOfA: string;
  const reviewer = `rev-counts-${engine}@example.com`;
  const clock = manualClock(START);

  const ok = async (method: 'POST' | 'GET', url: string, body?: unknown, key?: string) => {
    const res = await t.call(method, url, { ...(body === undefined ? {} : { body }), ...(key ? { key } : {}) });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data;
  };

  /** Scopes that cross hours and a day, start or end inside an hour, and name batches. */
  const scopes = (): [string, Omit<PerformanceScope, 'projectId'>][] => [
    ['all time', {}],
    ['from inside an hour', { from: at(37) }],
    ['to inside an hour', { to: at(95) }],
    ['both inside hours, across midnight', { from: at(17), to: at(173) }],
    ['inside one hour', { from: at(51), to: at(69) }],
    ['edges inside minutes', { from: at(26.4), to: at(93.7) }],
    ['inside one minute', { from: at(49.1), to: at(49.6) }],
    ['across one minute boundary', { from: at(48.9), to: at(49.2) }],
    ['whole hours', { from: '2026-05-04T23:00:00.000Z', to: '2026-05-05T01:00:00.000Z' }],
    ['empty interval', { from: at(60), to: at(60) }],
    ['batch A', { batchIds: [batchA] }],
    ['batch B, inside hours', { batchIds: [batchB], from: at(23), to: at(140) }],
    ['batches A and B (an asset in both counted once)', { batchIds: [batchA, batchB] }],
    ['batches A and C, inside minutes', { batchIds: [batchA, batchC], from: at(12.5), to: at(150.2) }],
    ['batch B named twice', { batchIds: [batchB, batchB] }],
    ['no batch at all', { batchIds: [] }],
  ];

  /** Each scope read from the counts equals the count of the history's entries. */
  const expectExact = async () => {
    const all = await historyReviewDays(t.store.db, { projectId: pid });
    for (const [name, scope] of scopes()) {
      const s = { projectId: pid, ...scope };
      expect(sorted(await reviewDays(t.store.db, s)), name).toEqual(sorted(await historyReviewDays(t.store.db, s)));
      expect(byUserStage(await countedWorkFigures(t.store.db, s)), name).toEqual(
        byUserStage(await historyWorkFigures(t.store.db, s)),
      );
    }
    return decisions(all);
  };

  const label = (taskId: string) => ok('POST', `/v2/annotate/${taskId}?nextStage=true`, { answer: { tools: [] } });
  const review = (taskId: string, status: 'Accepted' | 'Rejected', key?: string) =>
    ok('POST', `/v2/review/${taskId}`, { reviewStatus: status }, key);

  beforeAll(async () => {
    t = await makeTestApp(engine, { clock, env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    await t.store.db.updateTable('organizations').set({ rate_limit: 1_000_000 }).execute();
    reviewerKey = await t.addUser(reviewer);
    pid = (await ok('POST', '/v2/project', { name: 'Review counts' })).project._id;
    await ok('POST', `/v2/project/${pid}`, { stages: STAGES });
    await ok('POST', `/v2/project/${pid}/assigned`, { assignees: [reviewer], role: 'Reviewer' });
    await ok('POST', `/v2/batches/${pid}`, { batches: 'A' });
    await ok('POST', `/v2/batches/${pid}`, { batches: 'B' });
    await ok('POST', `/v2/batches/${pid}`, { batches: 'C' });
    const listed = (await ok('GET', `/v2/batches/${pid}`)).batches as { _id: string; name: string }[];
    batchA = listed.find((b) => b.name === 'A')?._id as string;
    batchB = listed.find((b) => b.name === 'B')?._id as string;
    batchC = listed.find((b) => b.name === 'C')?._id as string;
    const assets = (
      await ok('POST', `/v2/project/${pid}/cloud`, {
        assets: [['A'], ['A'], ['B'], ['B'], ['A', 'B'], [], [], ['C']].map((batches, i) => ({
          data: `https://cdn.example.com/rc-${i}.jpg`,
          batches,
        })),
      })
    ).assets as { _id: string; taskId: string }[];
    unbatched = assets.slice(5, 7);
    firstOfA = assets[0]?._id as string;
    // One decision every 13 minutes and 18 seconds from 22:10 on, across minutes, hours and
    // midnight, by two reviewers; every third rejected, then labelled again and accepted.
    let minute = 0;
    for (const [i, a] of assets.entries()) {
      clock.set(at(minute));
      await label(a.taskId);
      const key = i % 2 ? reviewerKey : undefined;
      if (i % 3 === 0) {
        await review(a.taskId, 'Rejected', key);
        minute += 13.3;
        clock.set(at(minute));
        await label(a.taskId);
      }
      await review(a.taskId, 'Accepted', key);
      minute += 13.3;
    }
  });
  afterAll(() => t.close());

  it('answers every interval and batch exactly as the history counts it', async () => {
    // 8 acceptances and 3 rejections.
    expect(await expectExact()).toBe(11);
    // Batches without a shared asset are summed from the counts; A and B share one.
    expect(await countableBatches(t.store.db, [batchA, batchC])).toEqual([batchA, batchC]);
    expect(await countableBatches(t.store.db, [batchA, batchB])).toBeUndefined();
    const all = await reviewDays(t.store.db, { projectId: pid });
    expect(new Set(all.map((d) => d.day))).toEqual(new Set(['2026-05-04', '2026-05-05']));
    expect(new Set(all.map((d) => d.reviewer)).size).toBe(2);
    // The report through the API reads the same: batch A over the whole hours after 23:00.
    const res = await t.call('POST', `/v2/project/${pid}/quality`, {
      body: { interval: ['2026-05-04T23:00:00.000Z', '2026-05-06T00:00:00.000Z'], batches: ['A'] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const expected = await historyReviewDays(t.store.db, {
      projectId: pid,
      from: '2026-05-04T23:00:00.000Z',
      to: '2026-05-06T00:00:00.000Z',
      batchIds: [batchA],
    });
    const reviews = res.json().data.reviews as { accepted: number; rejected: number };
    expect(reviews.accepted + reviews.rejected).toBeGreaterThan(0);
    expect(reviews.accepted).toBe(expected.reduce((n, d) => n + d.accepted, 0));
    expect(reviews.rejected).toBe(expected.reduce((n, d) => n + d.rejected, 0));
  });

  it("carries an asset's decisions into a batch it joins, and forgets history a requeue removes", async () => {
    const before = (await reviewDays(t.store.db, { projectId: pid, batchIds: [batchB] })).reduce(
      (n, d) => n + d.accepted + d.rejected,
      0,
    );
    await ok('POST', '/v2/assignBatches', { project: pid, batches: ['B'], assets: unbatched.map((a) => a._id) });
    const after = decisions(await reviewDays(t.store.db, { projectId: pid, batchIds: [batchB] }));
    // The first unbatched task (index 5) was decided once, the second (index 6, rejected first) twice.
    expect(after).toBe(before + 3);
    expect(await expectExact()).toBe(11);
    // The first asset of A joins C too: A and C now share it, and the two are counted from the
    // history until it leaves again.
    await ok('POST', '/v2/assignBatches', { project: pid, batches: ['C'], assets: [firstOfA] });
    expect(await countableBatches(t.store.db, [batchA, batchC])).toBeUndefined();
    expect(await countableBatches(t.store.db, [batchB, batchC])).toEqual([batchB, batchC]);
    expect(await expectExact()).toBe(11);
    // Requeued with its history removed: the task's two decisions (index 6) no longer count.
    clock.set(at(400));
    await ok('POST', `/v2/project/${pid}/requeueTasks`, {
      toStageId: 'Label',
      filters: { taskIds: [unbatched[1]?.taskId] },
      options: { removeStageHistory: true },
    });
    expect(await expectExact()).toBe(9);
  });

  it('backfills the counts of the history as it stands when the migration runs', async () => {
    const db = t.store.db as unknown as Kysely<unknown>;
    await workCounts.down(db);
    await workCounts.up(db);
    expect(await countableBatches(t.store.db, [batchA, batchC])).toBeUndefined();
    expect(await expectExact()).toBe(9);
  });

  it('folds PostgreSQL delta rows without losing or doubling a decision', async () => {
    const task = await t.store.db
      .selectFrom('tasks')
      .select(['id', 'asset_id'])
      .where('id', '=', unbatched[0]?.taskId as string)
      .executeTakeFirstOrThrow();
    // Many small writing statements: PostgreSQL appends delta rows, SQLite keeps one per key.
    for (let i = 0; i < 150; i++) {
      const id = newId(Date.parse(START) + i);
      await t.store.db
        .insertInto('task_history')
        .values({
          id,
          task_id: task.id,
          project_id: pid,
          asset_id: task.asset_id,
          stage_id: 'Review',
          stage_name: 'Review',
          stage_type: 'Review',
          answer: '{}',
          completed_at: at(90 + (i % 3)),
          completed_by: reviewer,
          review_status: i % 2 ? 'Rejected' : 'Accepted',
          trigger: 'review',
          duration: 0,
          is_skipped: 0,
        })
        .execute();
      if (i % 5 !== 0) await t.store.db.deleteFrom('task_history').where('id', '=', id).execute();
    }
    const rows = async () =>
      (await t.store.db.selectFrom('work_counts').select('entries').where('project_id', '=', pid).execute()).length;
    const keys = (
      await t.store.db
        .selectFrom('work_counts')
        .select(['batch_id', 'period', 'person', 'stage_id', 'stage_name', 'stage_type', 'trigger'])
        .distinct()
        .where('project_id', '=', pid)
        .execute()
    ).length;
    if (engine === 'postgres') expect(await rows()).toBeGreaterThan(keys + 256);
    else expect(await rows()).toBe(keys);
    const [folded] = await Promise.all([
      foldGatheredWorkCounts(t.store.db),
      reviewDays(t.store.db, { projectId: pid }),
      reviewDays(t.store.db, { projectId: pid, batchIds: [batchB] }),
    ]);
    if (engine === 'postgres') {
      expect(folded).toBeGreaterThan(0);
      expect(await rows()).toBeLessThanOrEqual(keys);
    } else expect(folded).toBe(0);
    // 30 entries kept: 9 + 30.
    expect(await expectExact()).toBe(39);
  });
});
