import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { buildApp, type App } from '../../src/http/app.js';
import { openStore } from '../../src/store/db.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

const CALLERS = 20;

describe.each(ENGINES)('/next under concurrency on %s', (engine) => {
  let t: TestApp;
  let second: { app: App; ctx: AppContext };
  let projectId: string;
  const keys: string[] = [];

  beforeAll(async () => {
    t = await makeTestApp(engine);
    // A second app on its own connection(s) to the same store, like a second API process.
    const store = await openStore(
      t.store.databaseUrl
        ? { databaseUrl: t.store.databaseUrl, pgSchema: t.store.pgSchema }
        : { sqliteFile: t.store.sqliteFile ?? '' },
    );
    const ctx = await createContext(loadConfig({ ANNOTARY_DATA_DIR: t.store.dataDir, LOG_LEVEL: 'silent' }), {
      store,
      migrated: true,
    });
    second = { app: await buildApp(ctx), ctx };
    const { setOrganizationPlan } = await import('../../src/services/identity/identity.service.js');
    await setOrganizationPlan(t.store.db, t.orgId, 'enterprise', 1_000_000);
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Race' } })).json().data.project._id;
    const assets = Array.from({ length: CALLERS + 10 }, (_, i) => ({ data: `https://cdn.example.com/race/${i}.jpg` }));
    expect((await t.call('POST', `/v2/project/${projectId}/cloud`, { body: { assets } })).statusCode).toBe(201);
    for (let i = 0; i < CALLERS; i += 1) {
      const email = `racer${i}-${engine}@example.com`;
      keys.push(await t.addUser(email));
    }
    const emails = keys.map((_, i) => `racer${i}-${engine}@example.com`);
    await t.call('POST', `/v2/project/${projectId}/assigned`, { body: { assignees: emails, role: 'Labeler' } });
  });
  afterAll(async () => {
    await second.app.close();
    await second.ctx.close();
    await second.ctx.store.close();
    await t.close();
  });

  it(`${CALLERS} parallel callers on two app instances never receive the same task`, async () => {
    const answers = await Promise.all(
      keys.map((key, i) =>
        (i % 2 === 0 ? t.app : second.app).inject({
          method: 'GET',
          url: `/v2/project/${projectId}/next?stageId=Label`,
          headers: { apikey: key },
        }),
      ),
    );
    const ids = answers.map((res) => {
      expect(res.statusCode).toBe(200);
      return res.json().data.task?._id as string;
    });
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(CALLERS);
    // Each task is now assigned to the caller who received it.
    const rows = await t.store.db.selectFrom('tasks').select(['id', 'assignee']).where('id', 'in', ids).execute();
    const byId = new Map(rows.map((r) => [r.id, r.assignee]));
    ids.forEach((id, i) => expect(byId.get(id)).toBe(`racer${i}-${engine}@example.com`));
    // Asking again returns the caller's own task, not a new one.
    const again = await t.app.inject({
      method: 'GET',
      url: `/v2/project/${projectId}/next?stageId=Label`,
      headers: { apikey: keys[0] ?? '' },
    });
    expect(again.json().data.task._id).toBe(ids[0]);
  });
});
