import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { statisticsIdle, stopStatistics } from '../../src/store/statistics.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/**
 * An import that makes the task table much larger than its statistics know has PostgreSQL's
 * statistics refreshed at once (src/store/statistics.ts), so what follows it is not planned for
 * the table it was before; small imports, and imports small beside what is known, leave them.
 */
describe.each(ENGINES)('statistics after an import, on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let imported = 0;

  const importAssets = async (n: number) => {
    const assets = Array.from({ length: n }, (_, i) => ({ data: `https://cdn.example.com/stats/${imported + i}.jpg` }));
    imported += n;
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, { body: { assets } });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
    await statisticsIdle(t.ctx.store.db);
  };
  /** A table's row count as PostgreSQL's statistics know it (-1: never analyzed). */
  const known = async (table = 'tasks') =>
    Number(
      (
        await sql<{ n: number }>`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = to_regclass(${table})`.execute(
          t.store.db,
        )
      ).rows[0]?.n,
    );

  beforeAll(async () => {
    t = await makeTestApp(engine);
    await t.store.db.updateTable('organizations').set({ plan: 'enterprise', rate_limit: 1_000_000 }).execute();
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Statistics' } })).json().data.project._id;
    if (engine === 'postgres') {
      // Autovacuum would refresh them too, at a moment of its own: not in this test's schema.
      for (const table of ['tasks', 'assets', 'asset_batches', 'task_history', 'jobs']) {
        await sql.raw(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`).execute(t.store.db);
      }
    }
  });
  afterAll(() => t.close());

  it('refreshes them after an import that grows the tables by a fifth or more, of 1,000 tasks or more', async () => {
    if (engine === 'sqlite') {
      // SQLite plans without statistics: nothing is analyzed there.
      await importAssets(1_200);
      const stat = await sql`SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'`.execute(t.store.db);
      expect(stat.rows).toEqual([]);
      return;
    }
    expect(await known()).toBeLessThanOrEqual(0);
    await importAssets(300); // under 1,000: left to autovacuum
    expect(await known()).toBeLessThanOrEqual(0);
    await importAssets(1_200); // never analyzed: analyzed, every row counted (a small table)
    expect(await known()).toBe(1_500);
    await importAssets(4_000); // 4,000 beside 1,500 known
    expect(await known()).toBe(5_500);
    await importAssets(1_000); // 1,000 beside 5,500 known: under a fifth
    expect(await known()).toBe(5_500);
    expect(await known('assets')).toBe(5_500);
    // A context closed beside the app's, on the same store, leaves its refreshes on.
    const other = await createContext(t.ctx.config, { store: t.store, migrated: true });
    await other.close();
    await importAssets(2_000); // 2,000 beside 5,500 known: over a fifth (8,500 in all)
    expect(await known()).toBe(8_500);
    // A store about to be closed starts none.
    await stopStatistics(t.ctx.store.db);
    await importAssets(2_000);
    expect(await known()).toBe(8_500);
  });
});
