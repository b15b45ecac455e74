import type { Logger } from 'pino';
import type { ChangeBus } from '../../adapters/change-bus/change-bus.js';
import type { PgListenTarget } from '../../adapters/change-bus/postgres.js';
import type { Config } from '../../config.js';
import type { Executor, Store } from '../../store/db.js';
import type { Principal } from '../../access.js';

/**
 * Resolved API keys, kept for a few seconds so a request does not pay the key lookup (a
 * three-table join, the biggest single cost of a simple read) every time.
 *
 * A cached key must never outlive a change that would refuse or demote it. Whoever replaces a
 * key, removes a user, changes a role or a plan calls `principalsChanged(db)` once the change has
 * committed: every cache of this process on that store is emptied at once, and with `REDIS_URL`
 * a message on one channel empties the caches of every other process (replicas, workers), and
 * the call waits until Redis has taken the message. A replica whose subscription is not up (Redis
 * unreachable, reconnecting) uses no cache at all, since it could miss a message; once it is up
 * again it starts empty. A lookup that began before a change is never stored after it (a
 * generation counter). Unknown keys are kept too, for the same time and under the same rules
 * (a negative cache): a flood of one wrong key costs one lookup per TTL, not one per request,
 * and a key issued later is not refused by it: issuing one through `issueApiKey` empties it (a
 * key inserted by hand, by another process without Redis, may wait out the TTL).
 *
 * A store that counts its own changes (SQLite: `Store.principalsVersion`, moved by triggers on
 * keys, users and organizations, migration 014) is asked on every request: a hit is used only
 * while the counter reads as it did when the key was kept, so a change made by any process on
 * the file (the CLI beside the server, a worker, a hand edit) applies at once, Redis or not;
 * while the counter cannot be read (a transaction open on the connection) nothing is kept.
 *
 * PostgreSQL without Redis listens to the notifications the same triggers send on commit
 * (`PgNotifyChangeBus`): any process's change, a hand edit included, empties the cache as soon
 * as the notification arrives. With Redis, changes made where no `principalsChanged` call is made
 * (a hand edit of a PostgreSQL database) take at most the TTL to apply.
 */

export const PRINCIPAL_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
/** The Redis channel of the bus that `openPrincipalCache` gives the cache. */
export const PRINCIPALS_CHANNEL = 'annotary:principals-changed';
/** The channel migration 014's PostgreSQL triggers notify on. */
export const PRINCIPALS_PG_CHANNEL = 'annotary_principals';

interface Entry {
  principal: Principal;
  expiresAt: number;
}

export interface PrincipalCache {
  /** The principal of a key hash, from the cache or from `load` (then kept when still valid). */
  resolve(keyHash: string, load: () => Promise<Principal | undefined>): Promise<Principal | undefined>;
  /** Whether keys are kept now (false with a TTL of 0, and while the bus is not listening). */
  active(): boolean;
  /** Empties this process's cache and, with Redis, every other process's; resolves once sent. */
  changed(): Promise<void>;
  close(): Promise<void>;
}

/** Every cache of this process, by the store (Kysely instance) whose rows it mirrors. */
const byStore = new WeakMap<object, Set<PrincipalCache>>();

/**
 * Call after committing a change to keys, users, roles or plans made through `db`: the caches
 * on that store (and, with Redis, on every replica) drop what they hold before this resolves.
 * A transaction is not a store: call it with the store once the transaction has committed.
 */
export async function principalsChanged(db: Executor): Promise<void> {
  const caches = byStore.get(db);
  if (caches) await Promise.all([...caches].map((c) => c.changed()));
}

/** Sets `key` as the newest entry of `map`, dropping the oldest one when the map is full. */
function keep<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as string);
  map.delete(key);
  map.set(key, value);
}

export function createPrincipalCache(
  db: Executor,
  opts: {
    bus?: ChangeBus | undefined;
    /** The store's change counter, read on every call; undefined when it cannot be read now. */
    version?: (() => number | undefined) | undefined;
    ttlMs?: number;
    onError?: (err: unknown) => void;
  },
): PrincipalCache {
  const ttlMs = opts.ttlMs ?? PRINCIPAL_CACHE_TTL_MS;
  const { bus, version } = opts;
  const entries = new Map<string, Entry>();
  /** Hashes known not to be a valid key, with when that knowledge expires. */
  const invalid = new Map<string, number>();
  let generation = 0;
  /** The store's counter when the entries were kept. */
  let seenVersion: number | undefined;
  const dropAll = () => {
    generation += 1;
    entries.clear();
    invalid.clear();
  };
  // Anything may have changed while the bus was not listening: `reset` drops everything too.
  bus?.subscribe({ changed: dropAll, reset: dropAll });
  /** Without a bus always; with one, only while it listens (a message could be missed otherwise). */
  const usable = () => ttlMs > 0 && (!bus || bus.listening());

  const cache: PrincipalCache = {
    active: usable,
    async resolve(keyHash, load) {
      const now = performance.now();
      const current = version?.();
      // Unreadable now: neither use nor keep anything this time.
      const versionKnown = !version || current !== undefined;
      if (version && versionKnown && current !== seenVersion) {
        dropAll();
        seenVersion = current;
      }
      const hit = entries.get(keyHash);
      if (hit && hit.expiresAt > now && versionKnown && usable()) return { ...hit.principal };
      if ((invalid.get(keyHash) ?? 0) > now && versionKnown && usable()) return undefined;
      const before = generation;
      const principal = await load();
      if (!principal) {
        entries.delete(keyHash);
        if (before === generation && versionKnown && usable()) keep(invalid, keyHash, now + ttlMs);
        return undefined;
      }
      if (before === generation && versionKnown && usable()) {
        invalid.delete(keyHash);
        keep(entries, keyHash, { principal, expiresAt: now + ttlMs });
      }
      return principal;
    },
    async changed() {
      dropAll();
      if (!bus) return;
      try {
        await bus.publish();
      } catch (err) {
        opts.onError?.(err);
      }
    },
    async close() {
      byStore.get(db)?.delete(cache);
      dropAll();
      await bus?.close();
    },
  };
  let set = byStore.get(db);
  if (!set) byStore.set(db, (set = new Set()));
  set.add(cache);
  return cache;
}

// The Redis adapter (and ioredis) loads only when REDIS_URL is set.
async function principalsBus(redisUrl: string): Promise<ChangeBus> {
  const { RedisChangeBus } = await import('../../adapters/change-bus/redis.js');
  return new RedisChangeBus(redisUrl, PRINCIPALS_CHANNEL);
}

/** PostgreSQL without Redis: the notifications the database's triggers send (migration 014). */
async function principalsNotifications(target: PgListenTarget): Promise<ChangeBus> {
  const { PgNotifyChangeBus } = await import('../../adapters/change-bus/postgres.js');
  return new PgNotifyChangeBus(target, PRINCIPALS_PG_CHANNEL);
}

/**
 * The cache of a process on `store`. Keys are kept only where every process hears of a change at
 * once: through Redis; on SQLite, through the change counter every process on the file moves; on
 * PostgreSQL without Redis, through the notifications its triggers send. (The CLI beside a running
 * server is the usual way to revoke a key on one machine, and a revoked key must stop at once.)
 * A one-shot command keeps no keys and listens to nothing; with Redis it still announces its
 * changes to the running processes.
 */
export async function openPrincipalCache(
  parts: { config: Pick<Config, 'redisUrl'>; store: Store; log: Logger },
  opts: { oneShot?: boolean } = {},
): Promise<PrincipalCache> {
  const { config, store, log } = parts;
  const version = store.principalsVersion;
  const listen = opts.oneShot ? undefined : store.listenTarget;
  return createPrincipalCache(store.db, {
    bus: config.redisUrl
      ? await principalsBus(config.redisUrl)
      : listen
        ? await principalsNotifications(listen)
        : undefined,
    version,
    ...(config.redisUrl || version || listen ? {} : { ttlMs: 0 }),
    onError: (err) =>
      log.warn(
        { err: String(err) },
        'API-key cache: Redis message failed; other replicas apply the change within seconds',
      ),
  });
}
