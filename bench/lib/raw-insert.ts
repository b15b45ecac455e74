import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from '../../src/store/sqlite/driver.js';
import pg from 'pg';
import { openStore, type Store } from '../../src/store/db.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import type { AssetRow, TaskRow } from '../../src/store/schema.js';
import type { AnnotaryServer } from './annotary.js';
import { createBenchSchema } from './postgres.js';

/*
 * What the database alone can do with the rows an import writes: the same asset and task rows
 * inserted straight with the engine's driver, in one transaction, into a scratch store that has
 * Annotary's schema (the project's own migrations: the same tables, indexes and foreign keys, and
 * a copy of the project's organization and project rows for the foreign keys to point at).
 * SQLite: better-sqlite3 prepared statements, one row each, with the server's pragmas.
 * PostgreSQL: pg multi-row INSERTs of 1000 rows each, over loopback like the server.
 */

export interface RawRows {
  assets: AssetRow[];
  tasks: TaskRow[];
}

export interface RawInsertFigures {
  /** BEGIN to COMMIT done, seconds. */
  seconds: number;
  /** What did the inserting, for the table: "better-sqlite3 prepared statements" ... */
  method: string;
}

/** Rows of the first row's columns, as value lists in that column order. */
function columnsOf<T extends object>(rows: readonly T[]): { columns: string[]; values: unknown[][] } {
  const first = rows[0];
  if (!first) return { columns: [], values: [] };
  const columns = Object.keys(first);
  return { columns, values: rows.map((r) => columns.map((c) => (r as Record<string, unknown>)[c])) };
}

/** A store with Annotary's schema and the server's organization and project rows. */
async function prepareScratch(server: AnnotaryServer, projectId: string, scratch: Store): Promise<void> {
  await migrateToLatest(scratch);
  const source = await openStore(
    server.schema ? { databaseUrl: server.schema.databaseUrl, poolSize: 1 } : { sqliteFile: serverFile(server) },
  );
  try {
    const project = await source.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
    if (!project) throw new Error(`project ${projectId} is not in the server's store`);
    const org = await source.db
      .selectFrom('organizations')
      .selectAll()
      .where('id', '=', project.organization_id)
      .executeTakeFirstOrThrow();
    await scratch.db.insertInto('organizations').values(org).execute();
    await scratch.db.insertInto('projects').values(project).execute();
  } finally {
    await source.close();
  }
}

function serverFile(server: AnnotaryServer): string {
  return path.join(server.dataDir, 'annotary.db');
}

async function sqliteInsert(server: AnnotaryServer, projectId: string, rows: RawRows): Promise<RawInsertFigures> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-bench-raw-'));
  try {
    const file = path.join(dir, 'scratch.db');
    const store = await openStore({ sqliteFile: file });
    try {
      await prepareScratch(server, projectId, store);
    } finally {
      await store.close();
    }
    const db = new SQLite(file);
    try {
      // The server's own pragmas (src/store/db.ts).
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      const tables = [
        { table: 'assets', ...columnsOf(rows.assets) },
        { table: 'tasks', ...columnsOf(rows.tasks) },
      ];
      const statements = tables.map((t) =>
        db.prepare(`INSERT INTO ${t.table} (${t.columns.join(', ')}) VALUES (${t.columns.map(() => '?').join(', ')})`),
      );
      const insertAll = db.transaction(() => {
        tables.forEach((t, i) => {
          const statement = statements[i] as SQLite.Statement;
          for (const v of t.values) statement.run(v);
        });
      });
      const start = process.hrtime.bigint();
      insertAll();
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      return { seconds, method: 'better-sqlite3, prepared statements, one transaction' };
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const PG_ROWS_PER_INSERT = 1000;

async function postgresInsert(server: AnnotaryServer, projectId: string, rows: RawRows): Promise<RawInsertFigures> {
  const scratch = await createBenchSchema('scratch');
  try {
    const store = await openStore({ databaseUrl: scratch.databaseUrl, poolSize: 1 });
    try {
      await prepareScratch(server, projectId, store);
    } finally {
      await store.close();
    }
    // Statements and parameters built before the clock starts: only the database's work is timed.
    const statements: { text: string; values: unknown[] }[] = [];
    for (const [table, list] of [
      ['assets', rows.assets],
      ['tasks', rows.tasks],
    ] as const) {
      const { columns, values } = columnsOf<object>(list);
      for (let i = 0; i < values.length; i += PG_ROWS_PER_INSERT) {
        const chunk = values.slice(i, i + PG_ROWS_PER_INSERT);
        const tuples = chunk.map((_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
        statements.push({
          text: `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`,
          values: chunk.flat(),
        });
      }
    }
    const client = new pg.Client({ connectionString: scratch.databaseUrl });
    await client.connect();
    try {
      const start = process.hrtime.bigint();
      await client.query('BEGIN');
      for (const s of statements) await client.query(s.text, s.values);
      await client.query('COMMIT');
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      return { seconds, method: `pg, INSERTs of ${PG_ROWS_PER_INSERT} rows, one transaction` };
    } finally {
      await client.end();
    }
  } finally {
    await scratch.drop();
  }
}

/**
 * Inserts `rows` (made for `projectId` of the running `server`) into a scratch store of the
 * server's engine; the server's own store is only read (its organization and project rows).
 */
export async function rawInsert(server: AnnotaryServer, projectId: string, rows: RawRows): Promise<RawInsertFigures> {
  return server.schema ? postgresInsert(server, projectId, rows) : sqliteInsert(server, projectId, rows);
}
