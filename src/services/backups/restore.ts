import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import SQLite from '../../store/sqlite/driver.js';
import yauzl from 'yauzl';
import { SECRET_KEY_FILE } from '../../adapters/secret-key.js';
import { BACKUP_FORMAT, type BackupManifest, DB_ENTRY, FILES_PREFIX, KEY_ENTRY, MANIFEST } from './backup-archive.js';
import { clearStaleMarkers, liveProcesses } from './running-marker.js';

/**
 * `annotary restore <file>` into the embedded store's data folder:
 * - never while a server or worker runs on the folder (their run markers, see running-marker);
 * - into an empty folder, or over a stopped store only when told (`force`);
 * - the archive is unpacked and checked (manifest, SQLite integrity) beside the store first, and
 *   only then moved into place, so a bad archive leaves the folder as it was.
 */

export class RestoreRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefused';
  }
}

const STORE_ENTRIES = ['annotary.db', 'annotary.db-wal', 'annotary.db-shm', 'files', SECRET_KEY_FILE];

function existingStore(dataDir: string): string[] {
  return STORE_ENTRIES.filter((name) => fs.existsSync(path.join(dataDir, name)));
}

async function unpack(archive: string, into: string): Promise<BackupManifest> {
  const zip = await yauzl.openPromise(archive, { strictFileNames: true });
  let manifest: BackupManifest | undefined;
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName;
      if (name.endsWith('/')) continue;
      const known = name === DB_ENTRY || name === KEY_ENTRY || name === MANIFEST || name.startsWith(FILES_PREFIX);
      if (!known) throw new RestoreRefused(`not an Annotary backup: unexpected entry ${name}`);
      const target = path.join(into, ...name.split('/'));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const mode = name === KEY_ENTRY ? 0o600 : 0o644;
      await pipeline(await zip.openReadStreamPromise(entry), fs.createWriteStream(target, { mode }));
      if (name === MANIFEST) manifest = JSON.parse(fs.readFileSync(target, 'utf8')) as BackupManifest;
    }
  } finally {
    zip.close();
  }
  if (!manifest || manifest.format !== BACKUP_FORMAT || manifest.engine !== 'sqlite') {
    throw new RestoreRefused('not an Annotary backup of a SQLite store (no or unknown manifest)');
  }
  fs.rmSync(path.join(into, MANIFEST));
  if (!fs.existsSync(path.join(into, DB_ENTRY))) throw new RestoreRefused('the archive holds no database');
  const db = new SQLite(path.join(into, DB_ENTRY), { fileMustExist: true });
  try {
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new RestoreRefused(`the database in the archive is damaged: ${String(check)}`);
  } finally {
    db.close();
  }
  return manifest;
}

export async function restoreSqlite(
  archive: string,
  dataDir: string,
  opts: { force?: boolean } = {},
): Promise<BackupManifest> {
  if (!fs.existsSync(archive)) throw new RestoreRefused(`no such archive: ${archive}`);
  const live = liveProcesses(dataDir);
  if (live.length > 0) {
    const who = live.map((p) => `${p.what} (pid ${p.pid})`).join(', ');
    throw new RestoreRefused(`the store in ${dataDir} is in use by ${who}: stop every server and worker first`);
  }
  const present = existingStore(dataDir);
  if (present.length > 0 && !opts.force) {
    throw new RestoreRefused(
      `${dataDir} already holds a store (${present.join(', ')}): restore into an empty folder, or pass --force to replace it`,
    );
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const staging = fs.mkdtempSync(path.join(dataDir, '.restore-'));
  try {
    const manifest = await unpack(archive, staging);
    for (const name of present) fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
    for (const name of fs.readdirSync(staging)) fs.renameSync(path.join(staging, name), path.join(dataDir, name));
    clearStaleMarkers(dataDir);
    return manifest;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
