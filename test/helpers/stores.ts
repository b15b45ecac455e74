import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore, type Engine, type Store } from '../../src/store/db.js';
import { stopStatistics } from '../../src/store/statistics.js';
import { migrateToLatest } from '../../src/store/migrate.js';

/** Every store test runs on each of these; ANNOTARY_TEST_ENGINES=sqlite narrows a local run. */
export const ENGINES: Engine[] = (process.env.ANNOTARY_TEST_ENGINES ?? 'sqlite,postgres')
  .split(',')
  .map((e) => e.trim())
  .filter((e): e is Engine => e === 'sqlite' || e === 'postgres');

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestStore extends Store {
  /** What a second process needs to reach the same store. */
  databaseUrl: string | undefined;
  pgSchema: string | undefined;
  sqliteFile: string | undefined;
  dataDir: string;
  /** Closes the store and removes everything it made. */
  cleanup(): Promise<void>;
}

/** A fresh, migrated store: a temporary SQLite file, or a new schema on the test PostgreSQL. */
export async function makeStore(engine: Engine): Promise<TestStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-test-'));
  if (engine === 'sqlite') {
    const sqliteFile = path.join(dataDir, 'annotary.db');
    const store = await openStore({ sqliteFile });
    await migrateToLatest(store);
    return {
      ...store,
      databaseUrl: undefined,
      pgSchema: undefined,
      sqliteFile,
      dataDir,
      cleanup: async () => {
        await store.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const pgSchema = `t_${randomBytes(6).toString('hex')}`;
  const store = await openStore({ databaseUrl: TEST_DATABASE_URL, pgSchema });
  await migrateToLatest(store);
  return {
    ...store,
    databaseUrl: TEST_DATABASE_URL,
    pgSchema,
    sqliteFile: undefined,
    dataDir,
    cleanup: async () => {
      // The contexts the tests give this store leave its statistics refresh to its opener.
      await stopStatistics(store.db);
      await store.close();
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
      await client.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
