import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { buildApp, type App } from '../../src/http/app.js';
import { bootstrap, createUser, issueApiKey } from '../../src/services/identity/identity.service.js';
import { PgNotifyChangeBus } from '../../src/adapters/change-bus/postgres.js';
import { createPrincipalCache, PRINCIPALS_PG_CHANNEL } from '../../src/services/identity/principal-cache.js';
import { openStore, type Store } from '../../src/store/db.js';
import { ENGINES, makeStore, type TestStore } from '../helpers/stores.js';

/**
 * Resolved API keys are cached for a few seconds (src/services/identity/principal-cache.ts).
 * Two app instances, each with its own connection to one database and both on one Redis, stand
 * for two replicas: a change made through one must apply on the other at once, not when the
 * other's cached key expires.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Replica {
  app: App;
  ctx: AppContext;
  store: Store;
}

const open: { replicas: Replica[]; store?: TestStore } = { replicas: [] };
afterEach(async () => {
  for (const r of open.replicas.splice(0)) {
    await r.app.close();
    await r.ctx.close();
  }
  await open.store?.cleanup();
  open.store = undefined;
});

async function replica(shared: TestStore, own: boolean, redis = true): Promise<Replica> {
  // The second replica opens its own connection, as another process would.
  const store = own
    ? await openStore(
        shared.sqliteFile
          ? { sqliteFile: shared.sqliteFile }
          : { databaseUrl: shared.databaseUrl, pgSchema: shared.pgSchema },
      )
    : shared;
  const config = loadConfig({
    ANNOTARY_DATA_DIR: shared.dataDir,
    LOG_LEVEL: 'silent',
    ANNOTARY_PUBLIC_URL: 'http://annotary.test',
    ANNOTARY_SECRET_KEY: 'cd'.repeat(32),
    ...(redis ? { REDIS_URL } : {}),
  });
  const ctx = await createContext(config, { store, migrated: true });
  const app = await buildApp(ctx);
  await app.ready();
  const r = { app, ctx, store };
  open.replicas.push(r);
  if (own) {
    const close = ctx.close.bind(ctx);
    ctx.close = async () => {
      await close();
      await store.close();
    };
  }
  return r;
}

async function get(r: Replica, url: string, key: string): Promise<number> {
  return (await r.app.inject({ method: 'GET', url, headers: { apikey: key } })).statusCode;
}

/** POST or DELETE on an organization's users through replica `r`; answers the status. */
async function membersCall(r: Replica, method: 'POST' | 'DELETE', url: string, key: string, users: unknown[]) {
  return (await r.app.inject({ method, url, headers: { apikey: key }, payload: { users } })).statusCode;
}

/** A key lookup that answers a fixed caller and counts how often it ran. */
function countedLoad(orgId: string) {
  const counted = {
    loads: 0,
    load: async () => {
      counted.loads += 1;
      return Promise.resolve({
        keyId: 'k',
        userId: 'u',
        email: 'e@example.com',
        orgId,
        orgRole: 'owner' as const,
        plan: 'enterprise',
        planLimit: null,
      });
    },
  };
  return counted;
}

/** Waits until both replicas keep keys (their Redis subscriptions are up). */
async function listening(...rs: Replica[]): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!rs.every((r) => r.app.principals.active())) {
    if (Date.now() > deadline) throw new Error('the key caches never started listening on Redis');
    await new Promise((res) => setTimeout(res, 20));
  }
}

/**
 * Redis delivers an announced change to the other replica a moment after the change resolved on
 * the replica that made it (one network hop): a round trip from `r` to Redis lets it arrive, as
 * the time between two requests does in use.
 */
async function delivered(r: Replica): Promise<void> {
  await r.ctx.rateLimits.peek('delivery', 60_000, 0);
}

describe.each(ENGINES)('API-key cache across replicas sharing Redis, on %s', (engine) => {
  it('a replaced key stops working on the other replica at once', async () => {
    open.store = await makeStore(engine);
    const a = await replica(open.store, false);
    const b = await replica(open.store, true);
    await listening(a, b);
    const boot = await bootstrap(a.store.db, a.ctx.clock, { plan: 'enterprise' });
    const user = await createUser(a.store.db, a.ctx.clock, {
      email: `k-${engine}@example.com`,
      orgId: boot!.orgId,
      orgRole: 'member',
    });
    const first = await issueApiKey(a.store.db, a.ctx.clock, user.id);
    await delivered(b);
    expect(await get(b, '/v2/listProjects', first)).toBe(200);

    // A change nobody announces: PostgreSQL's B answers from its cache until the key expires
    // there; SQLite's counter (moved by the database's triggers) tells B at once.
    await b.store.db.updateTable('api_keys').set({ revoked_at: new Date().toISOString() }).execute();
    expect(await get(b, '/v2/listProjects', first)).toBe(engine === 'sqlite' ? 401 : 200);
    await b.store.db.updateTable('api_keys').set({ revoked_at: null }).execute();

    // Replacing the key through A announces it: B refuses the old key on its very next request.
    const second = await issueApiKey(a.store.db, a.ctx.clock, user.id);
    await delivered(b);
    expect(await get(b, '/v2/listProjects', first)).toBe(401);
    expect(await get(b, '/v2/listProjects', second)).toBe(200);
    expect(await get(a, '/v2/listProjects', first)).toBe(401);
  });

  it('a removed user and a changed role apply on the other replica at once', async () => {
    open.store = await makeStore(engine);
    const a = await replica(open.store, false);
    const b = await replica(open.store, true);
    await listening(a, b);
    const boot = await bootstrap(a.store.db, a.ctx.clock, { plan: 'enterprise' });
    const ownerKey = boot!.apiKey!;
    const users = `/v2/organization/${boot!.orgId}/users`;
    const email = `r-${engine}@example.com`;
    const user = await createUser(a.store.db, a.ctx.clock, { email, orgId: boot!.orgId, orgRole: 'member' });
    const key = await issueApiKey(a.store.db, a.ctx.clock, user.id);

    expect(await get(b, users, key)).toBe(403);
    expect(await membersCall(a, 'POST', users, ownerKey, [{ email, organizationRole: 'admin' }])).toBe(201);
    expect(await get(b, users, key)).toBe(200);

    expect(await membersCall(a, 'DELETE', users, ownerKey, [email])).toBe(200);
    expect(await get(b, '/v2/listProjects', key)).toBe(401);
  });
});

/**
 * Without Redis, SQLite still caches keys: every process on the file (a second server, the CLI
 * beside it, a hand edit) moves the database's change counter (migration 014), which each
 * request reads before it trusts a kept key.
 */
describe('API-key cache without Redis, processes sharing one SQLite file', () => {
  it('keeps a resolved key, and looks it up again once any process changes keys, users or organizations', async () => {
    open.store = await makeStore('sqlite');
    const a = await replica(open.store, false, false);
    const b = await replica(open.store, true, false);
    expect(b.app.principals.active()).toBe(true);
    const boot = await bootstrap(a.store.db, a.ctx.clock, { plan: 'enterprise' });
    const counted = countedLoad(boot!.orgId);
    const load = counted.load;
    await b.app.principals.resolve('h', load);
    await b.app.principals.resolve('h', load);
    expect(counted.loads).toBe(1);
    // A change through the other process's own connection, announced to nobody.
    await a.store.db.updateTable('organizations').set({ name: 'Renamed' }).execute();
    await b.app.principals.resolve('h', load);
    expect(counted.loads).toBe(2);
    await b.app.principals.resolve('h', load);
    expect(counted.loads).toBe(2);
  });

  it('a key replaced, revoked by hand, a role changed or a user removed applies on the other process at once', async () => {
    open.store = await makeStore('sqlite');
    const a = await replica(open.store, false, false);
    const b = await replica(open.store, true, false);
    const boot = await bootstrap(a.store.db, a.ctx.clock, { plan: 'enterprise' });
    const ownerKey = boot!.apiKey!;
    const users = `/v2/organization/${boot!.orgId}/users`;
    const email = 'nr@example.com';
    const user = await createUser(a.store.db, a.ctx.clock, { email, orgId: boot!.orgId, orgRole: 'member' });
    const first = await issueApiKey(a.store.db, a.ctx.clock, user.id);
    expect(await get(b, '/v2/listProjects', first)).toBe(200);
    expect(await get(b, '/v2/listProjects', first)).toBe(200);

    const second = await issueApiKey(a.store.db, a.ctx.clock, user.id);
    await delivered(b);
    expect(await get(b, '/v2/listProjects', first)).toBe(401);
    expect(await get(b, '/v2/listProjects', second)).toBe(200);

    expect(await get(b, users, second)).toBe(403);
    expect(await membersCall(a, 'POST', users, ownerKey, [{ email, organizationRole: 'admin' }])).toBe(201);
    expect(await get(b, users, second)).toBe(200);

    // By hand, on the file, through a connection of neither server.
    const hand = await openStore({ sqliteFile: open.store.sqliteFile! });
    try {
      await hand.db
        .updateTable('api_keys')
        .set({ revoked_at: new Date().toISOString() })
        .where('user_id', '=', user.id)
        .execute();
    } finally {
      await hand.close();
    }
    expect(await get(b, '/v2/listProjects', second)).toBe(401);
    expect(await get(a, '/v2/listProjects', second)).toBe(401);

    const third = await issueApiKey(a.store.db, a.ctx.clock, user.id);
    expect(await get(b, '/v2/listProjects', third)).toBe(200);
    expect(await membersCall(a, 'DELETE', users, ownerKey, [email])).toBe(200);
    expect(await get(b, '/v2/listProjects', third)).toBe(401);
  });
});

/** Polls `check` until it holds (a change arriving by notification takes a moment, not a TTL). */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the change never arrived');
    await new Promise((res) => setTimeout(res, 20));
  }
}

/**
 * PostgreSQL without Redis: the triggers of migration 014 notify on commit, and each process
 * listens on a connection of its own.
 */
describe('API-key cache without Redis on PostgreSQL', () => {
  it('empties on a change made by another connection, long before the entries expire', async () => {
    open.store = await makeStore('postgres');
    const store = open.store;
    const bus = new PgNotifyChangeBus(store.listenTarget!, PRINCIPALS_PG_CHANNEL);
    const cache = createPrincipalCache(store.db, { bus, ttlMs: 600_000 });
    const other = await openStore({ databaseUrl: store.databaseUrl, pgSchema: store.pgSchema! });
    try {
      await eventually(async () => Promise.resolve(cache.active()));
      const boot = await bootstrap(store.db, { now: () => Date.now() }, { plan: 'enterprise' });
      const counted = countedLoad(boot!.orgId);
      const load = counted.load;
      await cache.resolve('h', load);
      await cache.resolve('h', load);
      expect(counted.loads).toBe(1);
      await other.db.updateTable('organizations').set({ name: 'Renamed' }).execute();
      await eventually(async () => {
        await cache.resolve('h', load);
        return counted.loads > 1;
      });
    } finally {
      await cache.close();
      await other.close();
    }
  });

  it('a replaced key stops working on the other process', async () => {
    open.store = await makeStore('postgres');
    const a = await replica(open.store, false, false);
    const b = await replica(open.store, true, false);
    await listening(a, b);
    const boot = await bootstrap(a.store.db, a.ctx.clock, { plan: 'enterprise' });
    const user = await createUser(a.store.db, a.ctx.clock, {
      email: 'pg-nr@example.com',
      orgId: boot!.orgId,
      orgRole: 'member',
    });
    const first = await issueApiKey(a.store.db, a.ctx.clock, user.id);
    expect(await get(b, '/v2/listProjects', first)).toBe(200);
    const second = await issueApiKey(a.store.db, a.ctx.clock, user.id);
    expect(await get(a, '/v2/listProjects', first)).toBe(401);
    await eventually(async () => (await get(b, '/v2/listProjects', first)) === 401);
    expect(await get(b, '/v2/listProjects', second)).toBe(200);
  });
});
