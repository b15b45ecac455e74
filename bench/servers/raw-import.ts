/**
 * The baseline of the import benchmark: what an import costs with nothing but the engine's driver.
 * A plain node:http server that takes the very request Annotary takes (`{assets: [...]}`, the
 * same bytes), parses it, builds the same asset and task rows (asset.service.ts importAssets)
 * and inserts them in one transaction into a scratch store migrated with Annotary's schema (same
 * tables, indexes and foreign keys), then answers 201 with the count. The runner times it
 * exactly as it times Annotary's POST /cloud: from sending the request to the answer.
 * SQLite: better-sqlite3 prepared statements, one row each, with the server's pragmas.
 * PostgreSQL: pg multi-row INSERTs of 1000 rows each, over loopback like the server.
 * Run by bench/import-assets.ts (bench/lib/raw-insert.ts), not by hand:
 *
 *   PORT=3002 BENCH_SQLITE_FILE=scratch.db BENCH_PROJECT_ID=... node --import tsx bench/servers/raw-import.ts
 */
import http from 'node:http';
import SQLite from '../../src/store/sqlite/driver.js';
import pg from 'pg';
import { newId } from '../../src/ids.js';
import { assetSizeFacts } from '../../src/store/repositories/metrics-assets.repository.js';
import type { AssetRow, TaskRow } from '../../src/store/schema.js';
import { EMPTY_ANSWER } from '../../src/workflow/types.js';

const port = Number(process.env.PORT ?? 3002);
const projectId = process.env.BENCH_PROJECT_ID ?? '';
const owner = process.env.BENCH_OWNER ?? 'bench-owner@annotary.local';
const PG_ROWS_PER_INSERT = 1000;

interface AssetInput {
  externalId?: string;
  data: string;
  metadata?: Record<string, unknown>;
}

/** The rows Annotary's import writes for `inputs`: an asset and a task resting in Label each. */
function rowsOf(inputs: AssetInput[]): { assets: AssetRow[]; tasks: TaskRow[] } {
  const now = new Date().toISOString();
  const answer = JSON.stringify(EMPTY_ANSWER);
  const assets: AssetRow[] = [];
  const tasks: TaskRow[] = [];
  for (const a of inputs) {
    const asset: AssetRow = {
      id: newId(),
      project_id: projectId,
      external_id: a.externalId ?? a.data,
      data: a.data,
      media_warning: null,
      dataset: null,
      context_data: null,
      metadata: a.metadata === undefined ? null : JSON.stringify(a.metadata),
      storage_id: null,
      attachments: '[]',
      deleted: 0,
      created_by: owner,
      created_at: now,
      ...assetSizeFacts(a.data, a.metadata),
    };
    assets.push(asset);
    tasks.push({
      id: newId(),
      project_id: projectId,
      asset_id: asset.id,
      external_id: a.externalId ?? a.data,
      stage_id: 'Label',
      status: 'TODO',
      assignee: null,
      priority: 0,
      answer,
      review_status: null,
      duration: 0,
      total_duration: 0,
      open_issues_count: 0,
      is_pre_labeled: 0,
      type: 'default',
      parent_task_id: null,
      consensus_id: null,
      consensus_score: null,
      brush_data_url: null,
      medical_brush_data_url: null,
      brush_frames: null,
      is_draft: 0,
      stage_entered_at: now,
      deleted: 0,
      created_at: now,
      updated_at: now,
      updated_by: owner,
      completed_at: null,
      completed_by: null,
    });
  }
  return { assets, tasks };
}

/** Rows of the first row's columns, as value lists in that column order. */
function columnsOf<T extends object>(rows: readonly T[]): { columns: string[]; values: unknown[][] } {
  const first = rows[0];
  if (!first) return { columns: [], values: [] };
  const columns = Object.keys(first);
  return { columns, values: rows.map((r) => columns.map((c) => (r as Record<string, unknown>)[c])) };
}

type Inserter = (rows: { assets: AssetRow[]; tasks: TaskRow[] }) => Promise<void>;

function sqliteInserter(file: string): Inserter {
  const db = new SQLite(file);
  // The server's own pragmas (src/store/db.ts).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  const statements = new Map<string, SQLite.Statement>();
  const statement = (table: string, columns: string[]) => {
    const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
    let s = statements.get(sql);
    if (!s) statements.set(sql, (s = db.prepare(sql)));
    return s;
  };
  const insertAll = db.transaction((rows: { assets: AssetRow[]; tasks: TaskRow[] }) => {
    for (const list of [rows.assets, rows.tasks] as const) {
      const { columns, values } = columnsOf<object>(list);
      const s = statement(list === rows.assets ? 'assets' : 'tasks', columns);
      for (const v of values) s.run(v);
    }
  });
  return (rows) => {
    insertAll(rows);
    return Promise.resolve();
  };
}

function postgresInserter(url: string): Inserter {
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  return async (rows) => {
    await connected;
    await client.query('BEGIN');
    try {
      for (const [table, list] of [
        ['assets', rows.assets],
        ['tasks', rows.tasks],
      ] as const) {
        const { columns, values } = columnsOf<object>(list);
        for (let i = 0; i < values.length; i += PG_ROWS_PER_INSERT) {
          const chunk = values.slice(i, i + PG_ROWS_PER_INSERT);
          const tuples = chunk.map(
            (_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`,
          );
          await client.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, chunk.flat());
        }
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  };
}

const insert = process.env.BENCH_DATABASE_URL
  ? postgresInserter(process.env.BENCH_DATABASE_URL)
  : sqliteInserter(process.env.BENCH_SQLITE_FILE ?? ':memory:');

const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200).end('ok');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    void (async () => {
      try {
        const { assets } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { assets: AssetInput[] };
        await insert(rowsOf(assets));
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'success', data: { assetsCreated: assets.length } }));
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
      }
    })();
  });
});

process.on('SIGTERM', () => server.close(() => process.exit(0)));
server.listen(port, '127.0.0.1');
