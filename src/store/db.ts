import fs from 'node:fs';
import path from 'node:path';
import SQLite, { SQLITE_BUILDS_LITERALS } from './sqlite/driver.js';
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
 * the statement's rows. better-sqlite3 12 (Node 20) builds each row object in C++ a property at a
 * time, and a row of many columns (a task has some forty) comes out as a dictionary-mode object,
 * slow to make and slow to read for everything after: the literal's objects share one hidden
 * class. Reading a task took 19.7 µs against 13.1 µs for its values alone, a page of ten tasks
 * 110 µs against 47 µs, and GET /task/{id} spent 215 µs of CPU per request before, 150 µs after.
 * (better-sqlite3 13, on Node 22 and later, builds rows this way itself: `SQLITE_BUILDS_LITERALS`.)
 * The names are the statement's result columns as SQLite reports them; a later column of the
 * same name wins, as in better-sqlite3's own objects (and a column named `__proto__` sets the
 * prototype in both).
 */
function rowMaker(names: string[]): RowOf {
  const fields = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  // Built from column names only (JSON string literals), never from values.
  return new Function('v', `return { ${fields} };`) as RowOf;
}

type CachedStatement = SqliteDatabase extends { prepare(sql: string): infer S } ? S : never;

/**
 * Runs a read with the schema version it sees: in the caller's transaction when one is open,
 * else in a read transaction of its own, so that the version and the read see the same schema.
 */
type SchemaRead = <T>(read: (schemaVersion: number) => T) => T;

function schemaRead(sqlite: SQLite.Database): SchemaRead {
  const version = sqlite.prepare('PRAGMA schema_version').pluck();
  const begin = sqlite.prepare('BEGIN');
  const commit = sqlite.prepare('COMMIT');
  return function sqliteSchemaRead(read) {
    if (sqlite.inTransaction) return read(version.get() as number);
    begin.run();
    try {
      return read(version.get() as number);
    } finally {
      if (sqlite.inTransaction) commit.run();
    }
  };
}

/**
 * A read-only statement as Kysely's SQLite driver uses it, its rows made by `rowMaker`. SQLite
 * prepares a statement again by itself after a schema change (a migration, by this process or
 * another), and its columns may then differ in number, order or names: the names are read again
 * after the first run that sees a schema version other than theirs. Writes that return rows
 * keep better-sqlite3's objects, and so do streams (nothing here streams).
 */
function shapedStatement(sqlite: SQLite.Database, stmt: SQLite.Statement, withSchema: SchemaRead): CachedStatement {
  if (!stmt.reader || !stmt.readonly) return stmt as unknown as CachedStatement;
  const values = stmt.raw(true);
  let namesVersion = -1;
  let makeRow: RowOf = () => ({});
  // Named: CPU profiles file these functions' own time as SQLite's (bench/lib/profile.ts).
  return {
    reader: true,
    all: function sqliteAll(parameters) {
      return withSchema((version) => {
        const rows = values.all(parameters) as unknown[][];
        if (version !== namesVersion) {
          // After the run: a statement SQLite had to prepare again has its new columns only now.
          makeRow = rowMaker(values.columns().map((c) => c.name));
          namesVersion = version;
        }
        return rows.map(makeRow);
      });
    },
    run: function sqliteRun(parameters) {
      return values.run(parameters);
    },
    iterate: (parameters) => sqlite.prepare(stmt.source).iterate(parameters),
  };
}

/** A statement cache by SQL text holding at most `size`, oldest out first. */
function statementCache(size: number, prepare: (sql: string) => CachedStatement) {
  const cache = new Map<string, CachedStatement>();
  return (sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = prepare(sql);
      if (cache.size >= size) {
        const oldest = cache.keys().next().value;
        if (oldest !== undefined) cache.delete(oldest);
      }
      cache.set(sql, stmt);
    }
    return stmt;
  };
}

/**
 * better-sqlite3 prepares a statement on every call, and Kysely calls it for every query:
 * preparing was the largest cost of a simple read. Statements are kept by SQL text (bounded,
 * oldest out first). Reuse is safe: Kysely's SQLite driver runs one query at a time on its
 * connection and reads every row at once (nothing here streams). On better-sqlite3 12, reads
 * make their rows with `rowMaker`.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const withSchema = SQLITE_BUILDS_LITERALS ? undefined : schemaRead(sqlite);
  const prepare = (sql: string): CachedStatement => {
    const stmt = sqlite.prepare(sql);
    return withSchema ? shapedStatement(sqlite, stmt, withSchema) : (stmt as unknown as CachedStatement);
  };
  const short = statementCache(STATEMENT_CACHE_SIZE, prepare);
  const long = statementCache(LONG_STATEMENT_CACHE_SIZE, prepare);
  return {
    close: () => sqlite.close(),
    prepare: (sql: string) => (sql.length > CACHEABLE_SQL_LENGTH ? long(sql) : short(sql)),
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
