import fs from 'node:fs';
import path from 'node:path';
import { destination, pino, type Logger } from 'pino';
import { type Clock, systemClock } from './adapters/clock.js';
import { MemoryRateLimitStore } from './adapters/rate-limit/memory.js';
import type { RateLimitStore } from './adapters/rate-limit/rate-limit-store.js';
import { resolveSecretKey, SECRET_KEY_FILE } from './adapters/secret-key.js';
import type { Config } from './config.js';
import { openStore, type Store } from './store/db.js';
import { migrateToLatest } from './store/migrate.js';
import { stopStatistics } from './store/statistics.js';
import { OidcClient } from './adapters/oidc/oidc-client.js';

/** Everything a request or a job needs, built once per process: the composition root. */
export interface AppContext {
  config: Config;
  store: Store;
  clock: Clock;
  log: Logger;
  rateLimits: RateLimitStore;
  /** 32-byte server key: secrets at rest, signed URLs. */
  secretKey: Buffer;
  /** The OpenID Connect relying party (discovered metadata of the configured providers). */
  oidc: OidcClient;
  close(): Promise<void>;
}

/** Keys a log line must never carry, wherever they sit in the logged object. */
export const REDACTED_PATHS = [
  'req.headers.apikey',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.apiKey',
  '*.apikey',
  '*.secret',
  '*.token',
  '*.privateKey',
  '*.credentials',
  '*.azureClientSecret',
];

/** The server logs to stdout; command-line tools to stderr, so their stdout stays clean JSON. */
export function createLogger(config: Pick<Config, 'logLevel'>, stream: 'stdout' | 'stderr' = 'stdout'): Logger {
  return pino(
    { level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    destination(stream === 'stdout' ? 1 : 2),
  );
}

export interface ContextOverrides {
  store?: Store;
  clock?: Clock;
  log?: Logger;
  rateLimits?: RateLimitStore;
  /** Skip migrations (the caller already ran them). */
  migrated?: boolean;
  /** A one-shot command (the CLI's administration commands): no SQLite checkpoint thread. */
  oneShot?: boolean;
}

// The Redis adapters (and ioredis) load only when REDIS_URL is set.
async function rateLimitStore(redisUrl: string | undefined): Promise<RateLimitStore> {
  if (!redisUrl) return new MemoryRateLimitStore();
  const { RedisRateLimitStore } = await import('./adapters/rate-limit/redis.js');
  return new RedisRateLimitStore(redisUrl);
}

export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const log = overrides.log ?? createLogger(config);
  let store = overrides.store;
  const ownsStore = !store;
  if (!store) {
    if (!config.databaseUrl) fs.mkdirSync(config.dataDir, { recursive: true });
    store = await openStore({
      databaseUrl: config.databaseUrl,
      sqliteFile: path.join(config.dataDir, 'annotary.db'),
      checkpointThread: !overrides.oneShot,
    });
  }
  if (!overrides.migrated) await migrateToLatest(store);
  const rateLimits = overrides.rateLimits ?? (await rateLimitStore(config.redisUrl));
  const theStore = store;
  const secret = resolveSecretKey(config.secretKey, config.dataDir);
  if (secret.generated) log.info({ file: SECRET_KEY_FILE }, 'generated a new secret key in the data folder');
  if (config.databaseUrl && !config.secretKey) {
    log.warn('ANNOTARY_SECRET_KEY is not set: every replica must share the same key, set it explicitly');
  }
  const clock = overrides.clock ?? systemClock;
  return {
    secretKey: secret.key,
    oidc: new OidcClient(() => clock.now()),
    config,
    store: theStore,
    clock,
    log,
    rateLimits,
    async close() {
      await rateLimits.close();
      // The store this context opened: its statistics refresh ends first, none starts after.
      // A context given a store leaves both to whoever opened it.
      if (ownsStore) {
        await stopStatistics(theStore.db);
        await theStore.close();
      }
    },
  };
}
