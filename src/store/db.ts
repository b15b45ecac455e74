import fs from 'node:fs';
import path from 'node:path';
import SQLite from './sqlite/driver.js';
import { registerRegexp } from './sqlite/regexp.js';
import { BACKSTOP_PAGES, startCheckpointer } from './sqlite/checkpointer.js';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase, type Transaction } from 'kysely';
import type pg from 'pg';
import { callbackQueries } from './pg-callback-queries.js';
import type { Database } from './schema.js';

export type Engine = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** Either the database or an open transaction: repository functions take this. */
export type Executor = Db | Trx;

export interface Store {
  db: Db;
  engine: Engine;
  /**
   * SQLite only: the counter the database moves whenever a key, a user or an organization
   * changes (migration 014), read at once on the connection; undefined while a transaction is
   * open on it (the read would see that transaction's snapshot, not the latest commits).
   */
  principalsVersion?: () => number | undefined;
  /** PostgreSQL only: how to open a connection of one's own (to LISTEN) to the same database. */
  listenTarget?: { connectionString: string; options?: string | undefined };
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** postgres:// URL; when absent the store is SQLite at `sqliteFile`. */
  databaseUrl?: string | undefined;
  sqliteFile?: string;
  /** PostgreSQL schema to work in (tests use one per run); created when missing. */
  pgSchema?: string;
  poolSize?: number;
  /**
   * SQLite: WAL checkpoints on a thread of their own instead of inside the commits that cross
   * the threshold (sqlite/checkpointer.ts). For long-running processes (the server, workers).
   */
  checkpointThread?: boolean;
}

let pgDriver: Promise<typeof pg> | undefined;

/** The PostgreSQL driver, loaded when a store first needs it: a SQLite server never loads it. */
function loadPg(): Promise<typeof pg> {
  pgDriver ??= import('pg').then(({ default: driver }) => {
    // COUNT(*) and BIGINT come back from pg as strings; every count we keep fits a JS number.
    driver.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
    driver.types.setTypeParser(1700, (v) => Number.parseFloat(v));
    return driver;
  });
  return pgDriver;
}

export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts);
  if (!opts.sqliteFile) throw new Error('openStore needs databaseUrl or sqliteFile');
  return openSqlite(opts.sqliteFile, opts.checkpointThread === true);
}

function openSqlite(file: string, checkpointThread: boolean): Store {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Several processes (API + worker) may share the file: wait for the write lock, don't fail.
  sqlite.pragma('busy_timeout = 10000');
  const checkpointer = checkpointThread && file !== ':memory:' ? startCheckpointer(file) : undefined;
  // The thread checkpoints; this connection does only past the backstop (a thread that stopped).
  if (checkpointer) sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  registerRegexp(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  let version: SQLite.Statement | undefined;
  return {
    db,
    engine: 'sqlite',
    principalsVersion: function sqlitePrincipalsVersion() {
      if (sqlite.inTransaction || !sqlite.open) return undefined;
      version ??= sqlite.prepare('SELECT version FROM principal_changes WHERE id = 1').pluck();
      return version.get() as number;
    },
    close: async () => {
      // The thread's connection closes first: the last one to close checkpoints the whole log.
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** Statements up to this length are kept in the main cache. */
const CACHEABLE_SQL_LENGTH = 8_192;
const STATEMENT_CACHE_SIZE = 500;
/**
 * Longer statements (bulk inserts, whose texts repeat: src/store/chunks.ts) are kept a few at a
 * time. A prepared statement of thousands of parameters holds about 80 bytes of native memory
 * per parameter until its JavaScript object is collected, which may be long after: prepared
 * anew for each batch of an import, they added tens of MiB to the server's RSS.
 */
const LONG_STATEMENT_CACHE_SIZE = 8;

type RowOf = (values: unknown[]) => Record<string, unknown>;

/**
 * A function that makes a statement's row object from its values, with one literal for all of
 * the statement's rows. better-sqlite3 builds each row object in C++ a property at a time, and a
 * row of many columns (a task has some forty) comes out as a dictionary-mode object, slow to make
 * and slow to read for everything after: the literal's objects share one hidden class. Reading a
 * task took 19.7 µs against 13.1 µs for its values alone, a page of ten tasks 110 µs against
 * 47 µs, and GET /task/{id} spent 215 µs of CPU per request before, 150 µs after. The names are
 * the statement's result columns as SQLite reports them; a later column of the same name wins,
 * as in better-sqlite3's own objects (and a column named `__proto__` sets the prototype in both).
 */
function rowMaker(names: string[]): RowOf {
  const fields = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  // Built from column names only (JSON string literals), never from values.
  return new Function('v', `return { ${fields} };`) as RowOf;
}

type CachedStatement = SqliteDatabase extends { prepare(sql: string): infer S } ? S : never;

/**
 * A statement as Kysely's SQLite driver uses it, its rows made by `rowMaker` when it has any.
 * SQLite prepares a statement again by itself after a schema change, and its columns may then
 * differ: the names are read again when a row's length differs from theirs, and a schema change
 * made on this connection (a migration) empties the caches (`withStatementCache`). A change by
 * another process that keeps a statement's column count (a rename) is not seen: processes of
 * two versions are not run side by side across a migration (docs/operations.md, upgrades).
 */
function shapedStatement(stmt: SQLite.Statement): CachedStatement {
  if (!stmt.reader) return stmt as unknown as CachedStatement;
  const values = stmt.raw(true);
  let width = -1;
  let makeRow: RowOf = () => ({});
  const maker = (row: unknown[]): RowOf => {
    if (row.length !== width) {
      const names = values.columns().map((c) => c.name);
      width = names.length;
      makeRow = rowMaker(names);
    }
    return makeRow;
  };
  // Named: CPU profiles file these functions' own time as SQLite's (bench/lib/profile.ts).
  return {
    reader: true,
    all: function sqliteAll(parameters) {
      const rows = values.all(parameters) as unknown[][];
      return rows.length ? rows.map(maker(rows[0] as unknown[])) : [];
    },
    run: function sqliteRun(parameters) {
      return values.run(parameters);
    },
    iterate: function* sqliteIterate(parameters) {
      for (const row of values.iterate(parameters) as IterableIterator<unknown[]>) yield maker(row)(row);
    },
  };
}

/** Statements that change the schema: run on this connection, they empty its statement caches. */
const SCHEMA_CHANGE = /^\s*(create|alter|drop)\s/i;

/** A statement cache by SQL text holding at most `size`, oldest out first. */
function statementCache(sqlite: SQLite.Database, size: number) {
  const cache = new Map<string, CachedStatement>();
  const get = (sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = shapedStatement(sqlite.prepare(sql));
      if (cache.size >= size) {
        const oldest = cache.keys().next().value;
        if (oldest !== undefined) cache.delete(oldest);
      }
      cache.set(sql, stmt);
    }
    return stmt;
  };
  return { get, has: (sql: string) => cache.has(sql), clear: () => cache.clear() };
}

/**
 * better-sqlite3 prepares a statement on every call, and Kysely calls it for every query:
 * preparing was the largest cost of a simple read. Statements are kept by SQL text (bounded,
 * oldest out first). Reuse is safe: Kysely's SQLite driver runs one query at a time on its
 * connection and reads every row at once (nothing here streams). A schema change is never kept,
 * and once run it empties the caches, since the statements' columns may have changed.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const short = statementCache(sqlite, STATEMENT_CACHE_SIZE);
  const long = statementCache(sqlite, LONG_STATEMENT_CACHE_SIZE);
  const schemaChange = (sql: string): CachedStatement => {
    const stmt = sqlite.prepare(sql);
    return {
      reader: stmt.reader,
      all: (parameters) => stmt.all(parameters),
      iterate: (parameters) => stmt.iterate(parameters),
      run(parameters) {
        try {
          return stmt.run(parameters);
        } finally {
          short.clear();
          long.clear();
        }
      },
    };
  };
  return {
    close: () => sqlite.close(),
    prepare: (sql: string) => {
      const cache = sql.length > CACHEABLE_SQL_LENGTH ? long : short;
      // Only a statement not kept yet can be a schema change (those are never kept).
      return cache.has(sql) || !SCHEMA_CHANGE.test(sql) ? cache.get(sql) : schemaChange(sql);
    },
  };
}

async function openPostgres(url: string, opts: OpenStoreOptions): Promise<Store> {
  const schema = opts.pgSchema;
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error('invalid schema name');
  const pg = await loadPg();
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await admin.end();
    }
  }
  const session = schema ? { options: `-c search_path=${schema}` } : {};
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, ...session });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: callbackQueries(pool) }) });
  return {
    db,
    engine: 'postgres',
    listenTarget: { connectionString: url, ...session },
    close: () => db.destroy(),
  };
}
