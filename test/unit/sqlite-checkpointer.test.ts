import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/db.js';
import SQLite from '../../src/store/sqlite/driver.js';
import { startCheckpointer } from '../../src/store/sqlite/checkpointer.js';

const dirs: string[] = [];
const tempFile = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-ckpt-'));
  dirs.push(dir);
  return path.join(dir, 'annotary.db');
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Rows in a WAL-mode database written by a connection that never checkpoints by itself. */
function walDatabase(file: string) {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const write = (n: number) => db.transaction(() => Array.from({ length: n }, () => insert.run('x'.repeat(500))))();
  return { db, write };
}

describe('WAL checkpoints on their own thread', () => {
  it('copies the log into the database file while the writer keeps the log', async () => {
    const file = tempFile();
    const { db, write } = walDatabase(file);
    write(2_000);
    const before = fs.statSync(file).size;
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(500 * 2_000);
    const checkpointer = startCheckpointer(file, { delayMs: 0, everyMs: 10 });
    try {
      // Checkpointed pages land in the database file: it grows to hold the rows.
      while (fs.statSync(file).size <= before + 500 * 1_000) await sleep(10);
    } finally {
      await checkpointer.stop();
    }
    // The writer still writes and reads, and nothing was lost.
    write(10);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2_010 });
    db.close();
  });

  it('stops before it started, and twice', async () => {
    const file = tempFile();
    walDatabase(file).db.close();
    const checkpointer = startCheckpointer(file, { delayMs: 60_000 });
    await checkpointer.stop();
    await checkpointer.stop();
  });

  it('is stopped by the store that started it, which then closes with its log checkpointed', async () => {
    const file = tempFile();
    const store: Store = await openStore({ sqliteFile: file, checkpointThread: true });
    await sql`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`.execute(store.db);
    for (let i = 0; i < 50; i++) await sql`INSERT INTO t (v) VALUES (${'y'.repeat(200)})`.execute(store.db);
    await store.close();
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const db = new SQLite(file, { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 50 });
    db.close();
  });
});
