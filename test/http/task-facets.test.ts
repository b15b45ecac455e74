import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as taskFacets from '../../src/store/migrations/012-task-facets.js';
import { foldGatheredFacets } from '../../src/store/repositories/task-facet.repository.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { consensusWorkflow } from '../helpers/street-scene.js';

/*
 * Totals of task listings filtered by stage, status, type and one batch come from the counts the
 * database keeps (migration 012), and so do the workflow's stage counts and the overview's
 * status chart. Each figure must equal a count of the tasks themselves after every kind of
 * write: imports with batches, batch assignment, moves, consensus copies, deletions.
 */

const CONSENSUS = consensusWorkflow({ threshold: 0.5 });

describe.each(ENGINES)('kept task counts by stage, status, type and batch on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    await t.store.db.updateTable('organizations').set({ rate_limit: 1_000_000 }).execute();
  });
  afterAll(() => t.close());

  let seq = 0;
  const newProject = async (stages?: unknown[]): Promise<string> => {
    const id = (await t.call('POST', '/v2/project', { body: { name: 'Facets' } })).json().data.project._id as string;
    if (stages) expect((await t.call('POST', `/v2/project/${id}`, { body: { stages } })).statusCode).toBe(200);
    return id;
  };
  const newBatches = async (pid: string, names: string[]): Promise<Map<string, string>> => {
    for (const name of names) {
      const res = await t.call('POST', `/v2/batches/${pid}`, { body: { batches: name } });
      expect(res.statusCode, res.body).toBeLessThan(300);
    }
    const listed = (await t.call('GET', `/v2/batches/${pid}`)).json().data.batches as { _id: string; name: string }[];
    return new Map(listed.map((b) => [b.name, b._id]));
  };
  const importAssets = async (pid: string, n: number, batches: string[] = []) => {
    const assets = Array.from({ length: n }, () => ({
      data: `https://cdn.example.com/img/f-${String(++seq)}.jpg`,
      batches,
    }));
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, { body: { assets } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.assets as { _id: string; taskId: string }[];
  };
  const total = async (pid: string, query: string): Promise<number> => {
    const res = await t.call('GET', `/v2/project/${pid}/tasks?limit=1&${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.total as number;
  };
  const filter = (f: object) => `filter=${encodeURIComponent(JSON.stringify(f))}`;

  /** What a count of the tasks themselves says, for the same selection. */
  const counted = async (pid: string, where: { stage?: string; status?: string; type?: string; batch?: string }) => {
    let q = t.store.db
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', pid)
      .where('deleted', '=', 0);
    if (where.stage) q = q.where('stage_id', '=', where.stage);
    if (where.status) q = q.where('status', '=', where.status);
    if (where.type) q = q.where('type', '=', where.type);
    const batch = where.batch;
    if (batch) {
      q = q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('asset_batches as ab')
            .select('ab.asset_id')
            .whereRef('ab.asset_id', '=', 'tasks.asset_id')
            .where('ab.batch_id', '=', batch),
        ),
      );
    }
    return Number((await q.executeTakeFirstOrThrow()).n);
  };

  /** Every listing total the kept counts answer agrees with a count, for every stage and batch. */
  const expectAgreement = async (pid: string, stages: string[], batchIds: string[]) => {
    for (const batch of [undefined, ...batchIds]) {
      const b = batch ? `batches=${batch}&` : '';
      for (const stage of stages) {
        expect(await total(pid, `${b}stage=${stage}`), `stage ${stage} batch ${batch}`).toBe(
          await counted(pid, { stage, batch }),
        );
      }
      for (const status of ['TODO', 'Completed']) {
        expect(await total(pid, `${b}status[eq]=${status}`), `status ${status} batch ${batch}`).toBe(
          await counted(pid, { status, batch }),
        );
      }
      expect(await total(pid, `${b}${filter({ type: 'consensus' })}`)).toBe(
        await counted(pid, { type: 'consensus', batch }),
      );
    }
    // The workflow's live counts and the overview's status chart.
    const status = (await t.call('GET', `/v2/project/${pid}/stages`)).json();
    const metrics = (
      await t.call('GET', `/v2/project/${pid}/metrics?metrics=AnnotationStatus,LabelStageGroups`)
    ).json();
    for (const stage of stages) {
      const listed = JSON.stringify(status).includes(stage);
      expect(listed, `GET /stages names ${stage}`).toBe(true);
    }
    const groups = (metrics.data?.LabelStageGroups ?? metrics.data?.metrics?.LabelStageGroups) as
      { stageId: string; count: number }[] | undefined;
    if (groups) {
      for (const g of groups)
        expect(g.count, `LabelStageGroups ${g.stageId}`).toBe(await counted(pid, { stage: g.stageId }));
    }
  };

  it('agrees with a count after imports with batches, assignment, moves, consensus and deletions', async () => {
    const pid = await newProject(CONSENSUS);
    const ids = await newBatches(pid, ['January', 'February']);
    const jan = ids.get('January') as string;
    const feb = ids.get('February') as string;
    const stages = ['Start', 'C', 'c1', 'c2', 'Disputed', 'Done'];
    const a = await importAssets(pid, 12, ['January']);
    const b = await importAssets(pid, 8, ['January', 'February']);
    const c = await importAssets(pid, 5);
    await expectAgreement(pid, stages, [jan, feb]);
    // Assets joining a batch carry their tasks, consensus copies included.
    const assign = await t.call('POST', '/v2/assignBatches', {
      body: { project: pid, batches: ['February'], assets: c.map((x) => x._id) },
    });
    expect(assign.statusCode, assign.body).toBeLessThan(300);
    await expectAgreement(pid, stages, [jan, feb]);
    // Moves out of and back into the consensus container drop and make copies.
    const requeue = (toStageId: string, taskIds: string[]) =>
      t.call('POST', `/v2/project/${pid}/requeueTasks`, { body: { toStageId, filters: { taskIds } } });
    expect(
      (
        await requeue(
          'Disputed',
          a.slice(0, 6).map((x) => x.taskId),
        )
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await requeue(
          'Done',
          b.slice(0, 3).map((x) => x.taskId),
        )
      ).statusCode,
    ).toBe(200);
    await expectAgreement(pid, stages, [jan, feb]);
    expect(await total(pid, 'stage=Done&status[eq]=Completed')).toBe(
      await counted(pid, { stage: 'Done', status: 'Completed' }),
    );
    const deleted = await t.call('DELETE', `/v2/project/${pid}/assets`, {
      body: { assets: [...a.slice(3, 9), ...b.slice(0, 2)].map((x) => x._id) },
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    await expectAgreement(pid, stages, [jan, feb]);
  });

  it('answers a filter on two batches with each task once', async () => {
    const pid = await newProject();
    const ids = await newBatches(pid, ['A', 'B']);
    await importAssets(pid, 4, ['A']);
    await importAssets(pid, 3, ['A', 'B']);
    await importAssets(pid, 2, ['B']);
    await importAssets(pid, 1);
    const both = filter({ batches: { $in: [ids.get('A'), ids.get('B')] } });
    expect(await total(pid, both)).toBe(9);
    expect(await total(pid, `batches=${ids.get('A')}`)).toBe(7);
    expect(await total(pid, `batches=${ids.get('B')}`)).toBe(5);
    expect(await total(pid, `batches=${ids.get('B')}&stage=Label`)).toBe(5);
    expect(await total(pid, `batches=${ids.get('B')}&stage=Complete`)).toBe(0);
    expect(await total(pid, filter({ status: { $in: ['TODO', 'Completed'] }, stage: { $eq: 'Label' } }))).toBe(10);
    expect(await total(pid, filter({ status: { $in: ['TODO'] }, stage: { $in: [] } }))).toBe(0);
  });

  it('backfills existing tasks when migration 012 runs, and folds deltas without losing one', async () => {
    const pid = await newProject();
    const ids = await newBatches(pid, ['Old']);
    const old = ids.get('Old') as string;
    const first = await importAssets(pid, 30, ['Old']);
    await importAssets(pid, 10);
    const db = t.store.db as unknown as Kysely<unknown>;
    await taskFacets.down(db);
    await taskFacets.up(db);
    expect(await total(pid, `batches=${old}`)).toBe(30);
    expect(await total(pid, 'stage=Label')).toBe(40);
    // Many small writing statements: PostgreSQL appends delta rows, SQLite keeps one per key.
    const moved = first[0]?.taskId as string;
    for (let i = 0; i < 150; i++) {
      await t.store.db
        .updateTable('tasks')
        .set({ stage_id: i % 2 ? 'Label' : 'Complete' })
        .where('id', '=', moved)
        .execute();
    }
    const rows = async () =>
      (await t.store.db.selectFrom('task_facets').select('live').where('project_id', '=', pid).execute()).length;
    const keys = 3; // ('', Label), ('Old', Label), ('', Complete) and ('Old', Complete) end at 0 or 1
    if (engine === 'postgres') expect(await rows()).toBeGreaterThan(300);
    else expect(await rows()).toBeLessThanOrEqual(keys + 1);
    // The worker's fold and two readers at once: nothing lost, nothing counted twice.
    const [folded] = await Promise.all([
      foldGatheredFacets(t.store.db),
      total(pid, 'stage=Label'),
      total(pid, `batches=${old}&stage=Label`),
    ]);
    if (engine === 'postgres') {
      expect(folded).toBeGreaterThan(0);
      expect(await rows()).toBeLessThanOrEqual(keys + 1);
    } else expect(folded).toBe(0);
    expect(await total(pid, 'stage=Label')).toBe(await counted(pid, { stage: 'Label' }));
    expect(await total(pid, 'stage=Complete')).toBe(await counted(pid, { stage: 'Complete' }));
    expect(await total(pid, `batches=${old}&stage=Complete`)).toBe(
      await counted(pid, { stage: 'Complete', batch: old }),
    );
    expect(await total(pid, `batches=${old}&stage=Label`)).toBe(await counted(pid, { stage: 'Label', batch: old }));
  });
});
