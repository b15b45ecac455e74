import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import SQLite from '../../src/store/sqlite/driver.js';
import { afterAll, describe, expect, it } from 'vitest';
import { childDatabaseUrl, runCli, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { makeStore, TEST_DATABASE_URL, type TestStore } from '../helpers/stores.js';

/**
 * `annotary backup` takes a consistent copy of a live embedded store and its files; `annotary
 * restore` refuses a live store and brings the copy back into a fresh folder, where a server
 * reads it. On PostgreSQL both explain pg_dump instead.
 */

const KEY = 'ak_backup_test_0123456789abcdef';
const BATCH = 20;
const running: ServerProcess[] = [];
const folders: string[] = [];
const stores: TestStore[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop('SIGKILL')));
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
  for (const store of stores) await store.cleanup();
});

function folder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-backup-'));
  folders.push(dir);
  return dir;
}

async function api(server: ServerProcess, method: string, url: string, body?: unknown) {
  const res = await fetch(`${server.url}/v2${url}`, {
    method,
    headers: { apikey: KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as { data: Record<string, unknown> };
}

/** The server hands out URLs on its public URL; the test reaches it on its own address. */
const local = (server: ServerProcess, url: string) => url.replace(/^https?:\/\/[^/]+/, server.url);

describe('backup and restore of the embedded store', () => {
  it('copies a store while a server writes to it, refuses the live folder, and restores elsewhere', async () => {
    const source = folder();
    const env = {
      ANNOTARY_DATA_DIR: source,
      ANNOTARY_BOOTSTRAP_API_KEY: KEY,
      ANNOTARY_RUN_WORKER: 'false',
      ANNOTARY_DEFAULT_PLAN: 'professional',
    };
    const a = await startServerProcess(env);
    running.push(a);
    const project = (await api(a, 'POST', '/project', { name: 'Backed up' })).data.project as { _id: string };
    const bytes = randomBytes(4096);
    const upload = (await api(a, 'GET', `/getUploadUrl?project=${project._id}&name=frame.png&type=assets`)).data
      .uploadUrl as string;
    expect((await fetch(local(a, upload), { method: 'PUT', body: bytes })).status).toBe(200);

    // Imports of BATCH assets, each in one transaction, for as long as the backup runs.
    let imports = 0;
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const assets = Array.from({ length: BATCH }, (_, i) => ({
          data: `https://cdn.example.com/${imports}-${i}.jpg`,
          externalId: `${imports}-${i}`,
        }));
        await api(a, 'POST', `/project/${project._id}/cloud`, { assets });
        imports++;
        // Under the plan's 500 requests a minute, however long the backup takes.
        await new Promise((r) => setTimeout(r, 150));
      }
    })();
    while (imports < 3) await new Promise((r) => setTimeout(r, 20));
    const before = imports;
    const archive = path.join(folder(), 'annotary-backup.zip');
    const backup = await runCli(['backup', archive], env);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain('with the secret key');
    const refused = await runCli(['restore', archive], env);
    writing = false;
    await writer;
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/in use by annotary serve \(pid \d+\)/);
    expect(imports).toBeGreaterThan(before);

    // Into a fresh folder: once; a second time it refuses to replace what is there.
    const target = path.join(folder(), 'data');
    const restoreEnv = { ...env, ANNOTARY_DATA_DIR: target };
    const restored = await runCli(['restore', archive], restoreEnv);
    expect(restored.code, restored.stderr).toBe(0);
    const again = await runCli(['restore', archive], restoreEnv);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('--force');
    expect(fs.readFileSync(path.join(target, 'secret.key'), 'utf8')).toBe(
      fs.readFileSync(path.join(source, 'secret.key'), 'utf8'),
    );

    // The copy is the store at one instant: whole imports only, every asset with its task.
    const db = new SQLite(path.join(target, 'annotary.db'), { readonly: true });
    const assets = (db.prepare('SELECT count(*) AS n FROM assets').get() as { n: number }).n;
    const tasks = (db.prepare('SELECT count(*) AS n FROM tasks').get() as { n: number }).n;
    db.close();
    expect(assets % BATCH).toBe(0);
    expect(assets).toBeGreaterThanOrEqual(before * BATCH);
    expect(assets).toBeLessThanOrEqual(imports * BATCH);
    expect(tasks).toBe(assets);

    // A server on the restored folder answers with the data, the same key and the file.
    const b = await startServerProcess(restoreEnv);
    running.push(b);
    const read = (await api(b, 'GET', `/project/${project._id}`)).data.project as { assetCount: number };
    expect(read.assetCount).toBe(assets);
    const signed = (
      await api(b, 'GET', `/getSignedUrl?name=${encodeURIComponent(upload)}&project=${project._id}&type=assets`)
    ).data.signedUrl as string;
    const file = await fetch(local(b, signed));
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
    await a.stop();
    await b.stop();
  }, 180_000);
});

describe('backup on PostgreSQL', () => {
  it('explains pg_dump and pg_restore instead of copying', async () => {
    const store = await makeStore('postgres');
    stores.push(store);
    const env = {
      ANNOTARY_DATA_DIR: store.dataDir,
      DATABASE_URL: childDatabaseUrl(TEST_DATABASE_URL, store.pgSchema ?? ''),
    };
    const archive = path.join(folder(), 'pg.zip');
    const backup = await runCli(['backup', archive], env);
    expect(backup.code).toBe(2);
    expect(backup.stderr).toContain('pg_dump');
    expect(fs.existsSync(archive)).toBe(false);
    const restore = await runCli(['restore', archive], env);
    expect(restore.code).toBe(2);
    expect(restore.stderr).toContain('pg_restore');
  }, 60_000);
});
