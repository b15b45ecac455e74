import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idList, inIdList, preparedQuery } from '../../src/store/prepared-query.js';
import { ENGINES, makeStore, type TestStore } from '../helpers/stores.js';

describe.each(ENGINES)('prepared queries on %s', (engine) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await makeStore(engine);
    const now = new Date().toISOString();
    await store.db
      .insertInto('organizations')
      .values([
        { id: 'org-a', name: 'A', plan: 'free', rate_limit: 10, created_at: now },
        { id: 'org-b', name: 'B', plan: 'enterprise', rate_limit: 20, created_at: now },
      ])
      .execute();
  });
  afterAll(() => store.close());

  it('runs each call with its own values, keeping the constants the query was written with', async () => {
    const byIdAndPlan = preparedQuery(['id', 'plan'], (db, a) =>
      db
        .selectFrom('organizations')
        .select(['id', 'rate_limit'])
        .where('id', '=', a.id)
        .where('plan', '=', a.plan)
        .where('rate_limit', '>', 5),
    );
    expect(await byIdAndPlan(store.db, { id: 'org-a', plan: 'free' })).toEqual([{ id: 'org-a', rate_limit: 10 }]);
    expect(await byIdAndPlan(store.db, { id: 'org-b', plan: 'enterprise' })).toEqual([{ id: 'org-b', rate_limit: 20 }]);
    expect(await byIdAndPlan(store.db, { id: 'org-b', plan: 'free' })).toEqual([]);
    await store.db.transaction().execute(async (trx) => {
      expect(await byIdAndPlan(trx, { id: 'org-a', plan: 'free' })).toEqual([{ id: 'org-a', rate_limit: 10 }]);
    });
  });

  it('takes a list of ids as one parameter, of any length, and compiles once for the database and its transactions', async () => {
    let built = 0;
    const byIds = preparedQuery(['ids', 'plan'], (db, a) => {
      built += 1;
      return db
        .selectFrom('organizations')
        .select(['id', 'rate_limit'])
        .where(inIdList(db, 'id', a.ids))
        .where('plan', '!=', a.plan)
        .orderBy('id');
    });
    const run = (db: Parameters<typeof byIds>[0], ids: string[]) => byIds(db, { ids: idList(db, ids), plan: 'none' });
    expect(await run(store.db, [])).toEqual([]);
    expect(await run(store.db, ['org-b'])).toEqual([{ id: 'org-b', rate_limit: 20 }]);
    expect(await run(store.db, ['org-b', 'org-x', 'org-a', "o'q"])).toEqual([
      { id: 'org-a', rate_limit: 10 },
      { id: 'org-b', rate_limit: 20 },
    ]);
    await store.db.transaction().execute(async (trx) => {
      expect(await run(trx, ['org-a'])).toEqual([{ id: 'org-a', rate_limit: 10 }]);
    });
    expect(built).toBe(1);
  });

  it('refuses a query that does not pass an argument through as a parameter', async () => {
    const lost = preparedQuery(['id'], (db, a) =>
      db.selectFrom('organizations').select('id').where('id', 'like', `${a.id}%`),
    );
    await expect(lost(store.db, { id: 'org' })).rejects.toThrow(/lost its argument\(s\) id/);
  });
});
