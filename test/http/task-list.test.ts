import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as taskCounts from '../../src/store/migrations/007-task-counts.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { consensusWorkflow } from '../helpers/street-scene.js';

/*
 * GET /project/{id}/tasks: totals come from counts the database keeps (migration 007) when the
 * listing is unfiltered, and pages past the middle are walked from the far end. Both must be
 * invisible: exact totals after every kind of write, and every page equal to the same slice of
 * one full listing, in every sort order, with ties and NULLs.
 */

const CONSENSUS = consensusWorkflow({ threshold: 0.5 });
const SORTS = ['createdAt', 'updatedAt', 'priority', 'externalId', 'status', 'stage', 'completedAt'] as const;
type SortField = (typeof SORTS)[number];
type Listed = { _id: string } & Record<SortField, string | number | null>;
/** Matches every task: the listing then counts rows instead of reading the stored figure. */
const EVERYTHING = encodeURIComponent(JSON.stringify({ type: { $in: ['default', 'consensus'] } }));

describe.each(ENGINES)('task listing totals and pages on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    // About 1,500 requests from one key: an enterprise limit far above that keeps the limiter out.
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    await t.store.db.updateTable('organizations').set({ rate_limit: 1_000_000 }).execute();
  });
  afterAll(() => t.close());

  const newProject = async (stages?: unknown[]): Promise<string> => {
    const id = (await t.call('POST', '/v2/project', { body: { name: 'Listing' } })).json().data.project._id as string;
    if (stages) expect((await t.call('POST', `/v2/project/${id}`, { body: { stages } })).statusCode).toBe(200);
    return id;
  };
  let seq = 0;
  const importAssets = async (pid: string, n: number, priority = 0): Promise<{ _id: string; taskId: string }[]> => {
    const assets = Array.from({ length: n }, () => ({ data: `https://cdn.example.com/img/a-${String(++seq)}.jpg` }));
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, { body: { assets, priority } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.assets;
  };
  const list = async (pid: string, query: string, key?: string) => {
    const res = await t.call('GET', `/v2/project/${pid}/tasks?${query}`, key ? { key } : {});
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { tasks: Listed[]; total: number };
  };
  const liveInStore = async (pid: string): Promise<number> => {
    const row = await t.store.db
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', pid)
      .where('deleted', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const countRows = async (pid: string): Promise<number> =>
    (await t.store.db.selectFrom('task_counts').select('live').where('project_id', '=', pid).execute()).length;
  /** The stored total, the counted total and the rows in the store agree; returns the figure. */
  const expectExactTotal = async (pid: string): Promise<number> => {
    const live = await liveInStore(pid);
    expect((await list(pid, 'limit=1')).total).toBe(live);
    expect((await list(pid, `limit=1&filter=${EVERYTHING}`)).total).toBe(live);
    return live;
  };

  it('keeps the total exact through imports (/cloud, /chat), consensus copies and asset deletions', async () => {
    const pid = await newProject(CONSENSUS);
    expect((await list(pid, 'limit=10')).total).toBe(0);
    const imported = await importAssets(pid, 30);
    // Each parent waits in the container with one copy per sub-stage.
    expect(await expectExactTotal(pid)).toBe(90);
    const chat = await t.app.inject({
      method: 'POST',
      url: `/v2/project/${pid}/chat`,
      headers: { apikey: t.ownerKey, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'numberOfConversations=4',
    });
    expect(chat.statusCode, chat.body).toBe(201);
    expect(await expectExactTotal(pid)).toBe(102);
    const gone = imported.slice(0, 10).map((a) => a._id);
    const del = await t.call('DELETE', `/v2/project/${pid}/assets`, { body: { assets: [...gone, gone[0]] } });
    expect(del.json().data.deletedCount).toBe(10);
    expect(await expectExactTotal(pid)).toBe(72);
    // Deleting them again changes nothing.
    await t.call('DELETE', `/v2/project/${pid}/assets`, { body: { assets: gone } });
    expect(await expectExactTotal(pid)).toBe(72);
    // Requeued out of the container, parents drop their open copies; back in, they get new ones.
    const parents = imported.slice(10, 15).map((a) => a.taskId);
    const requeue = (toStageId: string) =>
      t.call('POST', `/v2/project/${pid}/requeueTasks`, { body: { toStageId, filters: { taskIds: parents } } });
    expect((await requeue('Disputed')).json().data.modifiedCount.modified).toBe(5);
    expect(await expectExactTotal(pid)).toBe(62);
    await requeue('C');
    expect(await expectExactTotal(pid)).toBe(72);
  });

  it('stays exact with imports and deletions running at once, and folds its rows on read', async () => {
    const pid = await newProject();
    const first = await importAssets(pid, 120);
    await Promise.all([
      importAssets(pid, 150),
      importAssets(pid, 170),
      t.call('DELETE', `/v2/project/${pid}/assets`, { body: { assets: first.slice(0, 60).map((a) => a._id) } }),
      list(pid, 'limit=5&page=3'),
    ]);
    expect(await expectExactTotal(pid)).toBe(380);
    for (let i = 0; i < 70; i++) await importAssets(pid, 1);
    // PostgreSQL appends a row per writing statement; SQLite keeps one row per project.
    if (engine === 'postgres') expect(await countRows(pid)).toBeGreaterThan(64);
    else expect(await countRows(pid)).toBe(1);
    // Two readers folding at once neither lose nor double a delta.
    const [a, b] = await Promise.all([list(pid, 'limit=1'), list(pid, 'limit=1')]);
    expect([a.total, b.total]).toEqual([450, 450]);
    expect(await countRows(pid)).toBeLessThanOrEqual(2);
    expect(await expectExactTotal(pid)).toBe(450);
  });

  it('backfills the counts of existing projects when migration 007 runs', async () => {
    const pid = await newProject();
    const assets = await importAssets(pid, 40);
    await t.call('DELETE', `/v2/project/${pid}/assets`, { body: { assets: [assets[0]?._id] } });
    const db = t.store.db as unknown as Kysely<unknown>;
    await taskCounts.down(db);
    await taskCounts.up(db);
    expect(await expectExactTotal(pid)).toBe(39);
    await importAssets(pid, 5);
    expect(await expectExactTotal(pid)).toBe(44);
  });

  describe('every page is the slice of one full listing', () => {
    let pid: string;
    let labelerKey: string;
    beforeAll(async () => {
      pid = await newProject();
      // Three imports: within each, every task has the same createdAt (ties broken by id).
      const ids = [
        ...(await importAssets(pid, 100, 5)),
        ...(await importAssets(pid, 100, -3)),
        ...(await importAssets(pid, 110, 0)),
      ].map((a) => a.taskId);
      const labeler = 'labeler-list@example.com';
      labelerKey = await t.addUser(labeler);
      await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [labeler], role: 'Labeler' } });
      // Spread the other sort columns over few values, with NULLs in completedAt.
      await t.store.db.transaction().execute(async (trx) => {
        for (const [i, id] of ids.entries()) {
          await trx
            .updateTable('tasks')
            .set({
              priority: (i % 5) - 2,
              status: ['TODO', 'Completed', 'Archived'][i % 3] as string,
              stage_id: i % 4 === 0 ? 'Start' : 'Label',
              external_id: `x-${String(i % 37).padStart(2, '0')}`,
              updated_at: `2026-02-0${(i % 6) + 1}T00:00:00.000Z`,
              completed_at: i % 4 === 1 ? null : `2026-03-0${(i % 3) + 1}T00:00:00.000Z`,
              assignee: i % 3 === 0 ? labeler : null,
            })
            .where('id', '=', id)
            .execute();
        }
      });
    });

    /**
     * The order of a `sort` value (one or several comma-separated keys), ties broken by id in the
     * first key's direction. Each engine's own NULL placement: SQLite sorts NULL first,
     * PostgreSQL last (ascending).
     */
    const compare = (sort: string) => {
      const keys = sort.split(',').map((k) => ({ field: k.replace(/^-/, '') as SortField, desc: k.startsWith('-') }));
      const nullRank = engine === 'sqlite' ? -1 : 1;
      return (a: Listed, b: Listed) => {
        for (const { field, desc } of keys) {
          const [va, vb] = [a[field], b[field]];
          const c = va === vb ? 0 : va === null ? nullRank : vb === null ? -nullRank : va < vb ? -1 : 1;
          if (c !== 0) return desc ? -c : c;
        }
        const c = a._id < b._id ? -1 : 1;
        return keys[0]?.desc ? -c : c;
      };
    };

    const checkPages = async (
      filter: string,
      key: string | undefined,
      limits: number[],
      sorts: string[] = SORTS.flatMap((f) => [f, `-${f}`]),
    ) => {
      for (const sort of sorts) {
        const full = await list(pid, `limit=1000&sort=${sort}${filter}`, key);
        expect(full.tasks.length).toBe(full.total);
        expect(full.tasks).toEqual([...full.tasks].sort(compare(sort)));
        const order = full.tasks.map((x) => x._id);
        for (const limit of limits) {
          const pages = Math.ceil(full.total / limit) + 1;
          for (let page = 1; page <= pages; page++) {
            const got = await list(pid, `limit=${limit}&page=${page}&sort=${sort}${filter}`, key);
            expect(got.total).toBe(full.total);
            expect(
              got.tasks.map((x) => x._id),
              `${sort} limit ${limit} page ${page}`,
            ).toEqual(order.slice((page - 1) * limit, page * limit));
          }
        }
      }
    };

    it('unfiltered, every sort field in both directions', async () => {
      expect((await list(pid, 'limit=1')).total).toBe(310);
      await checkPages('', undefined, [11, 64]);
    });

    it('filtered: the total counts the filter, and deep pages walk from the end of the filtered list', async () => {
      const filter = `&filter=${encodeURIComponent(JSON.stringify({ priority: { $gte: 0 } }))}`;
      expect((await list(pid, `limit=1${filter}`)).total).toBe(186);
      await checkPages(filter, undefined, [9]);
    });

    it('sorts by several fields, each in its own direction, and pages the same order', async () => {
      const sorts = ['-priority,createdAt', 'status,-externalId', 'stage,priority,-completedAt', '-updatedAt,status'];
      await checkPages('', undefined, [13, 64], sorts);
      const filter = `&filter=${encodeURIComponent(JSON.stringify({ status: { $ne: 'Archived' } }))}`;
      await checkPages(filter, undefined, [17], sorts.slice(0, 2));
      const twice = await t.call('GET', `/v2/project/${pid}/tasks?sort=priority,-priority`);
      expect(twice.statusCode).toBe(400);
      expect(twice.json().errors[0].field).toBe('sort');
      expect((await t.call('GET', `/v2/project/${pid}/tasks?sort=priority,nope`)).json().errors[0].field).toBe('sort');
    });

    it("a Labeler's listing counts the Labeler's own tasks, not the project's", async () => {
      expect((await list(pid, 'limit=1', labelerKey)).total).toBe(104);
      await checkPages('&stage=Label', labelerKey, [11]);
      await checkPages('', labelerKey, [10]);
    });
  });
});
