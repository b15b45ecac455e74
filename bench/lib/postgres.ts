import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A fresh PostgreSQL schema per benchmark run, so runs never see each other's rows and nothing
 * is left behind. The server reaches it through the URL's `options=-c search_path=<schema>`.
 */

/** BENCH_DATABASE_URL, else the project's test database. */
export const BASE_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchSchema {
  name: string;
  /** DATABASE_URL for the server: the base URL with search_path set to the schema. */
  databaseUrl: string;
  /** `SELECT version()` of the server, for the record. */
  serverVersion: string;
  /** Runs one query in the schema (a new connection each time: this is for setup and stats). */
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

export function withSearchPath(url: string, schema: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`;
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createBenchSchema(prefix = 'bench'): Promise<BenchSchema> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const serverVersion = await withClient(BASE_DATABASE_URL, async (c) => {
    await c.query(`CREATE SCHEMA ${name}`);
    const v = await c.query<{ v: string }>(`SELECT current_setting('server_version') AS v`);
    return v.rows[0]?.v ?? 'unknown';
  });
  const databaseUrl = withSearchPath(BASE_DATABASE_URL, name);
  return {
    name,
    databaseUrl,
    serverVersion,
    query: (text, values) => withClient(databaseUrl, async (c) => (await c.query(text, values)).rows),
    drop: () =>
      withClient(BASE_DATABASE_URL, async (c) => void (await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`))),
  };
}

export interface TableReads {
  table: string;
  seqScans: number;
  indexScans: number;
}

/**
 * Scans per table of the schema since the server started (pg_stat_user_tables). The difference
 * between two readings, divided by the requests in between, says how many times each request
 * read each table. PostgreSQL publishes these counters about once a second: wait before reading.
 */
export async function tableReads(schema: BenchSchema): Promise<TableReads[]> {
  const rows = await schema.query<{ relname: string; seq_scan: string; idx_scan: string | null }>(
    'SELECT relname, seq_scan, idx_scan FROM pg_stat_user_tables WHERE schemaname = $1 ORDER BY relname',
    [schema.name],
  );
  return rows.map((r) => ({ table: r.relname, seqScans: Number(r.seq_scan), indexScans: Number(r.idx_scan ?? 0) }));
}
