import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { opendir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import SQLite from '../../store/sqlite/driver.js';
import yazl from 'yazl';
import { SECRET_KEY_FILE } from '../../adapters/secret-key.js';
import { BACKUP_FORMAT, type BackupManifest, DB_ENTRY, FILES_PREFIX, KEY_ENTRY, MANIFEST } from './backup-archive.js';

/**
 * `annotary backup <file>` on the embedded store, while servers run on it:
 * 1. the SQLite database through SQLite's online backup (better-sqlite3's `backup()`), copied in
 *    one step under one read transaction, so the copy is the database at one instant; in WAL
 *    mode that read does not hold writers up;
 * 2. then the file store. Files are written before any row names them and only ever replaced
 *    by an atomic rename, so every file the copied rows name is there, whole; a file added
 *    after the database copy is an orphan in the archive, which does no harm;
 * 3. and the data folder's secret.key, without which sealed secrets do not open.
 * Everything goes into one zip archive, written to a temporary name and renamed when complete.
 */

async function* walk(root: string, rel = ''): AsyncGenerator<string> {
  let dir: fs.Dir;
  try {
    dir = await opendir(path.join(root, rel));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for await (const entry of dir) {
    // Partial uploads live in dot folders (.tmp); they are not files of the store yet.
    if (entry.name.startsWith('.')) continue;
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) yield* walk(root, child);
    else if (entry.isFile()) yield child;
  }
}

function linkOrCopy(source: string, target: string): void {
  try {
    fs.linkSync(source, target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM') throw err;
    fs.copyFileSync(source, target);
  }
}

/** A consistent copy of the SQLite file at `source` into `target` (which must not exist). */
export async function copySqlite(source: string, target: string): Promise<string[]> {
  const db = new SQLite(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    // After the first step, the rest in one step: a write by another process between steps
    // would restart the copy, so the whole remainder is copied under one read lock.
    await db.backup(target, { progress: ({ remainingPages }) => Math.max(remainingPages, 1) });
  } finally {
    db.close();
  }
  const copy = new SQLite(target, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    const rows = copy.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[];
    return rows.map((r) => r.name);
  } finally {
    copy.close();
  }
}

export async function backupSqlite(
  dataDir: string,
  archive: string,
): Promise<{ manifest: BackupManifest; bytes: number }> {
  const dbFile = path.join(dataDir, 'annotary.db');
  if (!fs.existsSync(dbFile)) throw new Error(`no store at ${dbFile}: nothing to back up`);
  // In the data folder, so the file store's files can be hard-linked into it (same file system).
  const work = fs.mkdtempSync(path.join(dataDir, '.backup-'));
  const partial = `${archive}.${randomBytes(4).toString('hex')}.partial`;
  try {
    const dbCopy = path.join(work, DB_ENTRY);
    const migrations = await copySqlite(dbFile, dbCopy);
    const zip = new yazl.ZipFile();
    zip.addFile(dbCopy, DB_ENTRY);
    const filesRoot = path.join(dataDir, 'files');
    let files = 0;
    for await (const rel of walk(filesRoot)) {
      // Linked now, read when yazl gets to it: a file replaced or deleted meanwhile is read as
      // it was when listed, and nothing is copied or held in memory.
      const held = path.join(work, 'files', ...rel.split('/'));
      fs.mkdirSync(path.dirname(held), { recursive: true });
      try {
        linkOrCopy(path.join(filesRoot, rel), held);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // deleted since the listing
        throw err;
      }
      zip.addFile(held, FILES_PREFIX + rel);
      files++;
    }
    const keyFile = path.join(dataDir, SECRET_KEY_FILE);
    const includesKey = fs.existsSync(keyFile);
    if (includesKey) zip.addFile(keyFile, KEY_ENTRY, { mode: 0o100600 });
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      engine: 'sqlite',
      createdAt: new Date().toISOString(),
      migrations,
      files,
      includesKey,
    };
    zip.addBuffer(Buffer.from(JSON.stringify(manifest, null, 2) + '\n'), MANIFEST);
    zip.end();
    // The archive may hold the server key: readable by its owner only.
    await pipeline(zip.outputStream, fs.createWriteStream(partial, { mode: 0o600 }));
    fs.renameSync(partial, archive);
    return { manifest, bytes: fs.statSync(archive).size };
  } finally {
    fs.rmSync(partial, { force: true });
    fs.rmSync(work, { recursive: true, force: true });
  }
}
