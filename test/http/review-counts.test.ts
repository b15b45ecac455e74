import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import * as reviewCounts from '../../src/store/migrations/026-review-counts.js';
import type { PerformanceScope } from '../../src/store/repositories/performance.repository.js';
import { historyReviewDays, reviewDays, type ReviewDay } from '../../src/store/repositories/quality.repository.js';
import { foldGatheredReviewCounts } from '../../src/store/repositories/review-count.repository.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * The Quality page's review rejections come from the decisions the database counts per
 * project, batch, hour and reviewer (migration 026), and from the history itself for the parts
 * of an hour at the interval's ends. Every reading must equal a count of the history's entries
 * themselves, after reviews made through the API across hours and days, an asset joining a
 * batch, history removed by a requeue, the migration's backfill and (PostgreSQL) the folding of
 * delta rows.
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
  let unbatched: { _id: string; taskId: string }[];
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
    ['whole hours', { from: '2026-05-04T23:00:00.000Z', to: '2026-05-05T01:00:00.000Z' }],
    ['empty interval', { from: at(60), to: at(60) }],
    ['batch A', { batchIds: [batchA] }],
    ['batch B, inside hours', { batchIds: [batchB], from: at(23), to: at(140) }],
    ['batches A and B (an asset in both counted once)', { batchIds: [batchA, batchB] }],
    ['no batch at all', { batchIds: [] }],
  ];

  /** Each scope read from the counts equals the count of the history's entries. */
  const expectExact = async () => {
    const all = await historyReviewDays(t.store.db, { projectId: pid });
    for (const [name, scope] of scopes()) {
      const s = { projectId: pid, ...scope };
      expect(sorted(await reviewDays(t.store.db, s)), name).toEqual(sorted(await historyReviewDays(t.store.db, s)));
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
    const listed = (await ok('GET', `/v2/batches/${pid}`)).batches as { _id: string; name: string }[];
    batchA = listed.find((b) => b.name === 'A')?._id as string;
    batchB = listed.find((b) => b.name === 'B')?._id as string;
    const assets = (
      await ok('POST', `/v2/project/${pid}/cloud`, {
        assets: [['A'], ['A'], ['B'], ['B'], ['A', 'B'], [], []].map((batches, i) => ({
          data: `https://cdn.example.com/rc-${i}.jpg`,
          batches,
        })),
      })
    ).assets as { _id: string; taskId: string }[];
    unbatched = assets.slice(5);
    // One decision every 13 minutes from 22:10 on, across hours and midnight, by two reviewers;
    // every third rejected, then labelled again and accepted.
    let minute = 0;
    for (const [i, a] of assets.entries()) {
      clock.set(at(minute));
      await label(a.taskId);
      const key = i % 2 ? reviewerKey : undefined;
      if (i % 3 === 0) {
        await review(a.taskId, 'Rejected', key);
        minute += 13;
        clock.set(at(minute));
        await label(a.taskId);
      }
      await review(a.taskId, 'Accepted', key);
      minute += 13;
    }
  });
  afterAll(() => t.close());

  it('answers every interval and batch exactly as the history counts it', async () => {
    // 7 acceptances and 3 rejections.
    expect(await expectExact()).toBe(10);
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
    expect(await expectExact()).toBe(10);
    // Requeued with its history removed: the task's two decisions (index 6) no longer count.
    clock.set(at(400));
    await ok('POST', `/v2/project/${pid}/requeueTasks`, {
      toStageId: 'Label',
      filters: { taskIds: [unbatched[1]?.taskId] },
      options: { removeStageHistory: true },
    });
    expect(await expectExact()).toBe(8);
  });

  it('backfills the counts of the history as it stands when the migration runs', async () => {
    const db = t.store.db as unknown as Kysely<unknown>;
    await reviewCounts.down(db);
    await reviewCounts.up(db);
    expect(await expectExact()).toBe(8);
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
      (await t.store.db.selectFrom('review_counts').select('reviews').where('project_id', '=', pid).execute()).length;
    const keys = (
      await t.store.db
        .selectFrom('review_counts')
        .select(['batch_id', 'hour', 'reviewer'])
        .distinct()
        .where('project_id', '=', pid)
        .execute()
    ).length;
    if (engine === 'postgres') expect(await rows()).toBeGreaterThan(keys + 256);
    else expect(await rows()).toBe(keys);
    const [folded] = await Promise.all([
      foldGatheredReviewCounts(t.store.db),
      reviewDays(t.store.db, { projectId: pid }),
      reviewDays(t.store.db, { projectId: pid, batchIds: [batchB] }),
    ]);
    if (engine === 'postgres') {
      expect(folded).toBeGreaterThan(0);
      expect(await rows()).toBeLessThanOrEqual(keys);
    } else expect(folded).toBe(0);
    // 30 entries kept: 8 + 30.
    expect(await expectExact()).toBe(38);
  });
});
