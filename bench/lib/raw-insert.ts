import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '../../src/store/db.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { type AnnotaryServer, BENCH_OWNER_EMAIL, REPO_ROOT } from './annotary.js';
import { createBenchSchema } from './postgres.js';
import { freePort, startServerProcess } from './server-process.js';

/*
 * What the database alone can do with the rows an import writes: a scratch store with Annotary's
 * schema (the project's own migrations: the same tables, indexes and foreign keys, and a copy of
 * the project's organization and project rows for the foreign keys to point at), and a plain
 * HTTP process (bench/servers/raw-import.ts) that takes the same request as POST /cloud and
 * inserts its rows straight with the engine's driver in one transaction. The runner times both
 * the same way: from sending the request to its answer.
 */

export interface RawImporter {
  /** POST the import's body here. */
  url: string;
  /** What does the inserting, for the table: "better-sqlite3 prepared statements" ... */
  method: string;
  /** Stops the process and drops the scratch store. */
  stop(): Promise<void>;
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

const SQLITE_METHOD = 'better-sqlite3, prepared statements, one transaction';
const PG_METHOD = 'pg, INSERTs of 1000 rows, one transaction';

/**
 * A raw importer for `projectId` of the running `server`, in a scratch store of the server's
 * engine (the server's own store is only read: its organization and project rows), on the
 * server's core (Annotary idles while it is measured).
 */
export async function startRawImporter(server: AnnotaryServer, projectId: string): Promise<RawImporter> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-bench-raw-'));
  const scratch = server.schema ? await createBenchSchema('scratch') : undefined;
  const cleanup = async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  };
  try {
    const file = path.join(dir, 'scratch.db');
    const store = await openStore(scratch ? { databaseUrl: scratch.databaseUrl, poolSize: 1 } : { sqliteFile: file });
    try {
      await prepareScratch(server, projectId, store);
    } finally {
      await store.close();
    }
    const port = await freePort();
    const proc = await startServerProcess({
      label: 'raw import',
      command: process.execPath,
      args: ['--import', 'tsx', 'bench/servers/raw-import.ts'],
      cwd: REPO_ROOT,
      env: {
        PORT: String(port),
        BENCH_PROJECT_ID: projectId,
        BENCH_OWNER: BENCH_OWNER_EMAIL,
        ...(scratch ? { BENCH_DATABASE_URL: scratch.databaseUrl } : { BENCH_SQLITE_FILE: file }),
      },
      port,
      healthPath: '/healthz',
    });
    return {
      url: `${proc.url}/import`,
      method: scratch ? PG_METHOD : SQLITE_METHOD,
      async stop() {
        await proc.stop();
        await cleanup();
      },
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
