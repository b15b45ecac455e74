import type { LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { buildApp, type App } from '../../src/http/app.js';
import type { Clock } from '../../src/adapters/clock.js';
import { bootstrap, createUser, issueApiKey } from '../../src/services/identity/identity.service.js';
import type { OrgRole } from '../../src/access.js';
import { bootstrapOwnerPassword } from '../../src/services/identity/password-link.service.js';
import type { Engine } from '../../src/store/db.js';
import { makeStore, type TestStore } from './stores.js';

export interface TestApp {
  app: App;
  ctx: AppContext;
  store: TestStore;
  /** The bootstrap owner's key, e-mail and organization. */
  ownerKey: string;
  ownerEmail: string;
  /** The first start's one-time link to set the owner's password (unset with ANNOTARY_BOOTSTRAP_PASSWORD). */
  ownerPasswordLink: string | undefined;
  orgId: string;
  /** Sends a request through the app; `body` objects go as JSON. */
  call(
    method: string,
    url: string,
    opts?: { key?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  /** A new user of the organization with its own key. */
  addUser(email: string, orgRole?: OrgRole): Promise<string>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** Runs on the root instance before any route exists (hooks installed here see every route). */
  beforeRoutes?: (app: App) => void;
}

export async function makeTestApp(engine: Engine, opts: TestAppOptions = {}): Promise<TestApp> {
  const store = await makeStore(engine);
  const config: Config = loadConfig({
    ANNOTARY_DATA_DIR: store.dataDir,
    LOG_LEVEL: 'silent',
    ANNOTARY_PUBLIC_URL: 'http://annotary.test',
    // Tests that read assets' headers turn it on; the others' assets point at hosts that do not exist.
    ANNOTARY_READ_ASSET_HEADERS: 'false',
    ...opts.env,
  });
  const ctx = await createContext(config, { store, migrated: true, ...(opts.clock ? { clock: opts.clock } : {}) });
  const boot = await bootstrap(store.db, ctx.clock, { plan: config.defaultPlan });
  if (!boot?.apiKey) throw new Error('bootstrap made no key');
  const ownerLink = await bootstrapOwnerPassword(ctx, true);
  const app = await buildApp(ctx, opts.beforeRoutes ? { beforeRoutes: opts.beforeRoutes } : {});
  await app.ready();
  const ownerKey = boot.apiKey;
  return {
    app,
    ctx,
    store,
    ownerKey,
    ownerEmail: boot.email,
    ownerPasswordLink: ownerLink?.url,
    orgId: boot.orgId,
    call(method, url, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      const key = o.key === undefined ? ownerKey : o.key;
      if (key !== null) headers.apikey = key;
      const payload = o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
      return app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
    },
    async addUser(email, orgRole = 'member') {
      const user = await createUser(store.db, ctx.clock, { email, orgId: boot.orgId, orgRole });
      return issueApiKey(store.db, ctx.clock, user.id);
    },
    async close() {
      await app.close();
      await ctx.close();
      await store.cleanup();
    },
  };
}
