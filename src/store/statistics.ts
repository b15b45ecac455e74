import { sql } from 'kysely';
import type { Executor } from './db.js';
import { engineOf } from './prepared-query.js';

/*
 * PostgreSQL plans every statement from the tables' statistics, which autovacuum refreshes once
 * a table has changed by a tenth (plus 50 rows), looking once a minute. An import that makes the
 * task table several times larger than it was when last analyzed leaves those statistics wrong
 * until then: a fresh table of 6,500 tasks was still planned as a few dozen rows, so a group of
 * webhook deliveries moved its dozen tasks by a sequential scan of all of them, and the named
 * statements kept that plan (pg_stat_statements and auto_explain over bench/scripts/webhook-cpu.ts). After an import that grew the
 * tables by a fifth or more, the tables it writes are analyzed at once, in the background
 * (ANALYZE reads a sample of at most 30,000 rows a table; it blocks no reads or writes of rows,
 * only schema changes and other vacuum work on those tables while it runs).
 * SQLite plans without statistics unless ANALYZE was run, and is left as it is.
 */

/** The tables an import writes to, whose plans matter to what follows it. */
const TABLES = ['tasks', 'assets', 'asset_batches', 'task_history', 'jobs'] as const;
/** An import smaller than this never analyzes (autovacuum is soon enough). */
const MIN_ROWS = 1_000;
/** ...nor one that adds less than this share of the rows the statistics already know. */
const GROWTH = 0.2;

interface Refresh {
  running: Promise<void>;
  /** Tasks imported while the refresh ran: looked at again once it ends. */
  again: number;
}

/** The refresh running on each store, by its Kysely instance. */
const refreshes = new WeakMap<object, Refresh>();
/** Stores being closed: nothing more starts on them. */
const closing = new WeakSet<object>();
/** An ANALYZE that takes longer than this (tables far larger than this server's) gives up. */
const ANALYZE_TIMEOUT = '60s';

/**
 * Call once an import of `rows` tasks has committed: on PostgreSQL, when the task table's
 * statistics know fewer than five times `rows` tasks (never analyzed included), its tables are
 * analyzed in the background. Never throws; a failure goes to `onError`.
 */
export function afterImport(db: Executor, rows: number, onError: (err: unknown) => void): void {
  if (rows < MIN_ROWS || closing.has(db) || engineOf(db) !== 'postgres') return;
  const current = refreshes.get(db);
  if (current) {
    current.again += rows;
    return;
  }
  const refresh: Refresh = { running: Promise.resolve(), again: 0 };
  refreshes.set(db, refresh);
  refresh.running = (async () => {
    let added = rows;
    try {
      for (;;) {
        await analyzeIfGrown(db, added);
        added = refresh.again;
        refresh.again = 0;
        // The last look and the end are one step (`finally` runs before anything else can),
        // so an import committed meanwhile is either counted here or starts its own refresh.
        if (added === 0 || closing.has(db)) return;
      }
    } catch (err) {
      onError(err);
    } finally {
      refreshes.delete(db);
    }
  })();
}

/** Resolves once no refresh runs on `db`. */
export async function statisticsIdle(db: Executor): Promise<void> {
  await refreshes.get(db)?.running;
}

/**
 * For a store about to be closed (a context closing the store it opened calls this): starts
 * nothing more on `db` and resolves once the refresh running, if any, has ended (an ANALYZE
 * under way is let finish, within its timeout). A context given a store that stays open leaves
 * its refreshes alone.
 */
export async function stopStatistics(db: Executor): Promise<void> {
  closing.add(db);
  await statisticsIdle(db);
}

async function analyzeIfGrown(db: Executor, added: number): Promise<void> {
  // reltuples is -1 for a table never analyzed (PostgreSQL 14 and later), 0 before 14.
  const { rows } = await sql<{ known: number }>`
    SELECT reltuples::float8 AS known FROM pg_class WHERE oid = to_regclass('tasks')`.execute(db);
  const known = Number(rows[0]?.known ?? -1);
  if (known > 0 && added < known * GROWTH) return;
  // The tables' owner may analyze them (the role that ran the migrations); another role gets
  // PostgreSQL's warning that it skipped them, and the statistics stay autovacuum's.
  await db.transaction().execute(async (trx) => {
    await sql.raw(`SET LOCAL statement_timeout = '${ANALYZE_TIMEOUT}'`).execute(trx);
    await sql.raw(`ANALYZE ${TABLES.join(', ')}`).execute(trx);
  });
}
