import fs from 'node:fs';
import nodeModule from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUILT_CLI,
  buildOnce,
  runBuilt,
  runBuiltOnPty,
  startBuiltServer,
  type BuiltServer,
} from '../helpers/built-cli.js';
import { fillBucket, S3RVER_KEYS, startS3rver } from '../helpers/emulators.js';
import { childDatabaseUrl } from '../helpers/server-process.js';
import { ENGINES, makeStore, type TestStore } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

const KEY = 'ak_cli_test_key_0123456789abcdef';
const ROWS = 100_000;

beforeAll(() => buildOnce(), 600_000);

function json<T = Record<string, unknown>>(text: string): T {
  return JSON.parse(text) as T;
}

describe.each(ENGINES)('the built annotary command against a server on %s', (engine) => {
  let store: TestStore;
  let server: BuiltServer;
  let dir: string;
  let env: Record<string, string>;
  let projectId: string;

  beforeAll(async () => {
    store = await makeStore(engine);
    server = await startBuiltServer({
      ANNOTARY_DATA_DIR: store.dataDir,
      ANNOTARY_BOOTSTRAP_API_KEY: KEY,
      // Resuming walks the project's assets (100 pages): more than the standard 100 requests a minute.
      ANNOTARY_DEFAULT_PLAN: 'professional',
      // The storage-folder import lists an s3rver on 127.0.0.1.
      ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true',
      ...(store.databaseUrl && store.pgSchema
        ? { DATABASE_URL: childDatabaseUrl(store.databaseUrl, store.pgSchema) }
        : {}),
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-cli-'));
    // Nothing from the developer's own profile or environment leaks in.
    env = { ANNOTARY_CONFIG: path.join(dir, 'config.json'), ANNOTARY_API_KEY: '', ANNOTARY_URL_EU: '' };
  }, 120_000);
  afterAll(async () => {
    await server.stop();
    await store.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('logs in with the key on standard input and stores it, mode 600, per deployment', async () => {
    const wrong = await runBuilt(['login', '--url', `${server.url}/v2`], env, 'ak_wrong_key_0000000000000000000\n');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: /);
    expect(fs.existsSync(env.ANNOTARY_CONFIG as string)).toBe(false);

    const ok = await runBuilt(['login', '--url', `${server.url}/v2`, '--json'], env, `${KEY}\n`);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(json(ok.stdout)).toEqual({ deployment: 'eu', url: `${server.url}/v2`, profile: env.ANNOTARY_CONFIG });
    const file = env.ANNOTARY_CONFIG as string;
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(json(fs.readFileSync(file, 'utf8'))).toEqual({
      deployments: { eu: { url: `${server.url}/v2`, apiKey: KEY } },
    });

    const us = await runBuilt(['login', '--deployment', 'us', '--url', `${server.url}/v2`, '--key', KEY], env);
    expect(us.code).toBe(0);
    expect(us.stdout).toContain('Logged in to us');
    const saved = json<{ deployments: Record<string, unknown> }>(fs.readFileSync(file, 'utf8'));
    expect(Object.keys(saved.deployments).sort()).toEqual(['eu', 'us']);
  });

  it('answers usage mistakes with exit code 2 and help with 0, describing every command', async () => {
    const help = await runBuilt(['--help'], env);
    expect(help.code).toBe(0);
    for (const c of [
      'login',
      'projects',
      'tasks',
      'metrics',
      'import',
      'export',
      'serve',
      'worker',
      'migrate',
      'keys',
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${c}\\b.*\\S`, 'm'));
    }
    expect((await runBuilt(['import', '--help'], env)).stdout).toContain('--storage <storageId>');
    expect((await runBuilt(['bogus'], env)).code).toBe(2);
    expect((await runBuilt(['projects', 'list', '--limit', 'many'], env)).code).toBe(2);
    expect((await runBuilt(['projects', 'list', '--deployment', 'mars'], env)).code).toBe(2);
    const noFile = await runBuilt(['import', 'p1'], env);
    expect([noFile.code, noFile.stderr]).toEqual([
      2,
      'error: give a file to import, or --storage S --bucket B [--path P]\n',
    ]);
  });

  it('creates, lists and reads projects: tables for people, JSON with --json', async () => {
    const created = await runBuilt(['projects', 'create', '--name', 'Street scenes', '--json'], env);
    expect(created.code).toBe(0);
    projectId = String(json(created.stdout)._id);

    const table = await runBuilt(['projects', 'list'], env);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^_id\s+name\s+createdAt/);
    expect(table.stdout).toContain(`${projectId}  Street scenes`);
    const listed = json<{ projects: { _id: string }[]; total: number }>(
      (await runBuilt(['projects', 'list', '--json'], env)).stdout,
    );
    expect(listed.projects.map((p) => p._id)).toContain(projectId);

    const got = await runBuilt(['projects', 'get', projectId, '--json'], env);
    expect(json(got.stdout)).toMatchObject({ _id: projectId, name: 'Street scenes' });
    const missing = await runBuilt(['projects', 'get', '000000000000000000000000'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: .*not found/i);
  });

  it(`imports a ${ROWS.toLocaleString('en')}-row CSV with a bar on a terminal, resumes after a kill, no duplicates`, async () => {
    const csv = path.join(dir, 'assets.csv');
    const lines = ['data,externalId,batches,metadata'];
    for (let i = 0; i < ROWS; i++) {
      lines.push(`https://cdn.example.com/street/${i}.jpg,street-${i},${i % 2 ? 'odd' : 'even;all'},"{""n"":${i}}"`);
    }
    fs.writeFileSync(csv, `${lines.join('\n')}\n`);

    const pty = runBuiltOnPty(['import', projectId, csv, '--chunk', '5000'], env);
    const progressed = () => {
      const counts = [...pty.output().matchAll(/(\d+)\/100000/g)].map((m) => Number(m[1]));
      return Math.max(0, ...counts);
    };
    await waitFor(() => progressed() >= 10_000, 'the import to get 10,000 assets in', 240_000, 50);
    pty.child.kill('SIGKILL');
    await pty.exited;
    expect(pty.output()).toMatch(/import \[[█░]+\] \d+% \| \d+\/100000 \| \d+ assets\/s \| ETA /);

    const tasks = async () =>
      json<{ total: number }>((await runBuilt(['tasks', 'list', projectId, '--limit', '1', '--json'], env)).stdout)
        .total;
    const before = await tasks();
    expect(before).toBeGreaterThanOrEqual(10_000);
    expect(before).toBeLessThan(ROWS);

    const resumed = await runBuilt(['import', projectId, csv, '--json'], env);
    expect(resumed.code).toBe(0);
    const summary = json<{ read: number; skipped: number; imported: number }>(resumed.stdout);
    // A request in flight at the kill may still have landed after `before` was read.
    expect(summary.read).toBe(ROWS);
    expect(summary.skipped).toBeGreaterThanOrEqual(before);
    expect(summary.skipped + summary.imported).toBe(ROWS);
    expect(resumed.stderr).toMatch(/^import: \d+\/\d+ \(\d+ assets\/s\)$/m);
    expect(await tasks()).toBe(ROWS);

    const again = json<{ skipped: number; imported: number }>(
      (await runBuilt(['import', projectId, csv, '--json'], env)).stdout,
    );
    expect(again).toMatchObject({ skipped: ROWS, imported: 0 });
  }, 900_000);

  it('imports a storage folder: every file under the path, keyed by its object key, once', async () => {
    const s3 = await startS3rver();
    try {
      await fillBucket(s3.client, 'frames', {
        'drive-1/a.jpg': 'A',
        'drive-1/b.jpg': 'B',
        'drive-1/night/c.jpg': 'C',
        'drive-2/d.jpg': 'D',
      });
      const api = (p: string, init: RequestInit = {}) =>
        fetch(`${server.url}/v2${p}`, {
          ...init,
          headers: { apikey: KEY, 'content-type': 'application/json', ...init.headers },
        });
      const storage = await api('/storages', {
        method: 'POST',
        body: JSON.stringify({
          name: 'frames',
          provider: 'CUSTOM_S3',
          host: s3.url,
          publicKey: S3RVER_KEYS.accessKeyId,
          privateKey: S3RVER_KEYS.secretAccessKey,
        }),
      });
      expect(storage.status).toBe(201);
      const storageId = String(((await storage.json()) as { data: { storage: { _id: string } } }).data.storage._id);
      // The key from the environment, as a pipeline passes it (this test does not need the login's profile).
      const keyEnv = { ...env, ANNOTARY_API_KEY: KEY, ANNOTARY_URL_EU: `${server.url}/v2` };
      const project = json((await runBuilt(['projects', 'create', '--name', 'Drive 1', '--json'], keyEnv)).stdout);
      const folderProject = String(project._id);

      const args = [
        'import',
        folderProject,
        '--storage',
        storageId,
        '--bucket',
        'frames',
        '--path',
        'drive-1',
        '--json',
      ];
      const first = await runBuilt(args, keyEnv);
      expect(first.code).toBe(0);
      // Not a terminal: progress as plain lines on stderr, the summary alone on stdout.
      expect(first.stderr).toMatch(/^import: 3\/3 \(\d+ assets\/s\)\n$/);
      expect(json(first.stdout)).toMatchObject({ imported: 3, skipped: 0 });

      const assets = (await (await api(`/project/${folderProject}/assets?limit=100`)).json()) as {
        data: { assets: { externalId: string; storage?: string; data: string }[] };
      };
      const imported = assets.data.assets;
      expect(imported.map((a) => a.externalId).sort()).toEqual([
        'drive-1/a.jpg',
        'drive-1/b.jpg',
        'drive-1/night/c.jpg',
      ]);
      // The lasting address, unsigned: the server signs it again with the storage on each read.
      for (const a of imported) {
        expect(a.storage).toBe(storageId);
        expect(a.data).toBe(`${s3.url}/frames/${a.externalId}`);
      }

      const again = await runBuilt(args, keyEnv);
      expect(json(again.stdout)).toMatchObject({ imported: 0, skipped: 3 });
      const usage = await runBuilt(['import', folderProject, '--storage', storageId], keyEnv);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toBe('error: --storage needs --bucket\n');
    } finally {
      await s3.stop();
    }
  });

  it('imports a COCO file of labels as pre-labels and prints the report', async () => {
    const keyEnv = { ...env, ANNOTARY_API_KEY: KEY, ANNOTARY_URL_EU: `${server.url}/v2` };
    const api = (p: string, body: unknown) =>
      fetch(`${server.url}/v2${p}`, {
        method: 'POST',
        headers: { apikey: KEY, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => (await r.json()) as { data: Record<string, any> }); // eslint-disable-line @typescript-eslint/no-explicit-any
    const pid = String((await api('/project', { name: 'Labels' })).data.project._id);
    await api(`/project/${pid}`, {
      categorySchema: { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box' }] },
      stages: [
        { id: 'Start', type: 'Start', next: ['Complete'], autoForward: false },
        { id: 'Complete', type: 'Complete', next: [] },
      ],
    });
    await api(`/project/${pid}/cloud`, { assets: [{ data: 'https://cdn.example.com/a/street.jpg' }] });
    const file = path.join(dir, 'instances.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        images: [{ id: 1, file_name: 'street.jpg', width: 100, height: 100 }],
        categories: [
          { id: 1, name: 'car' },
          { id: 2, name: 'Bus' },
        ],
        annotations: [
          { id: 1, image_id: 1, category_id: 1, bbox: [1, 2, 30, 40] },
          { id: 2, image_id: 1, category_id: 2, bbox: [1, 2, 3, 4] },
        ],
      }),
    );
    const out = await runBuilt(['import-labels', pid, file, '--format', 'coco'], keyEnv);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('1 task(s) pre-labelled with 1 object(s) from 1 image(s)');
    expect(out.stdout).toContain('category "Bus" matches no tool: 1 object(s) left out');
    const usage = await runBuilt(['import-labels', pid, file], keyEnv);
    expect(usage.code).toBe(2);
  });

  it('exports to NDJSON and to a zip, and filters task lists', async () => {
    const out = path.join(dir, 'tasks.ndjson');
    const run = await runBuilt(['export', projectId, '-o', out, '--batches', 'odd', '--json'], env);
    expect(run.code).toBe(0);
    expect(json(run.stdout)).toMatchObject({ output: out, format: 'ndjson' });
    const items = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => json<{ externalId: string; batches: string[] }>(l));
    expect(items).toHaveLength(ROWS / 2);
    expect(new Set(items.map((i) => i.externalId)).size).toBe(ROWS / 2);
    expect(items.every((i) => i.batches.includes('odd'))).toBe(true);

    const zip = path.join(dir, 'tasks.zip');
    expect((await runBuilt(['export', projectId, '-o', zip, '--stage', 'Label'], env)).code).toBe(0);
    expect(fs.readFileSync(zip).subarray(0, 2).toString()).toBe('PK');

    const page = json<{ tasks: { externalId: string }[]; total: number }>(
      (await runBuilt(['tasks', 'list', projectId, '--filter', '{"externalId":"street-7"}', '--json'], env)).stdout,
    );
    expect(page.total).toBe(1);
    expect(page.tasks[0]?.externalId).toBe('street-7');
    const metric = await runBuilt(['metrics', projectId, 'AnnotationStatus', '--json'], env);
    expect(metric.code).toBe(0);
  }, 600_000);
});

/** Node 22.8 and later keep the server's compiled code with their own module compile cache. */
const NODE_COMPILE_CACHE = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

describe('the built server starts from the code it compiled before', () => {
  it('is one bundle in strict mode, as the ES modules it is built from', () => {
    // A banner before esbuild's "use strict" would leave the whole server in sloppy mode.
    expect(fs.readFileSync(path.join(path.dirname(BUILT_CLI), 'server.cjs'), 'utf8')).toMatch(/^"use strict";/);
  });

  it.runIf(!NODE_COMPILE_CACHE)(
    'keeps V8 code for its bundle on Node 20, and a restart runs from it',
    () =>
      startTwice('ANNOTARY_CODE_CACHE_DIR', async (cache, first) => {
        const cacheFiles = () => fs.readdirSync(cache).filter((n) => n.endsWith('.v8cache'));
        // Written a second after the start.
        await waitFor(() => cacheFiles().length === 1, 'the code cache to be written', 30_000, 50);
        const [name] = cacheFiles();
        const written = fs.statSync(path.join(cache, name!)).mtimeMs;
        await first.stop();
        return async () => {
          // A cache V8 refused, a damaged or a missing one would be written again a second after the start.
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          expect(cacheFiles()).toEqual([name]);
          expect(fs.statSync(path.join(cache, name!)).mtimeMs).toBe(written);
        };
      }),
    120_000,
  );

  it.runIf(NODE_COMPILE_CACHE)(
    "keeps it with Node's compile cache on Node 22.8 and later",
    () =>
      startTwice('NODE_COMPILE_CACHE', async (cache, first) => {
        await first.stop(); // Node writes its cache as the process ends
        // The largest file of Node's cache: the server bundle's code is about a megabyte.
        const sizes = fs.readdirSync(cache, { recursive: true }).map((name) => {
          const stat = fs.statSync(path.join(cache, String(name)));
          return stat.isFile() ? stat.size : 0;
        });
        expect(Math.max(0, ...sizes)).toBeGreaterThan(500_000);
        return async () => {};
      }),
    120_000,
  );
});

/**
 * Starts the built server twice on one SQLite store, its code cache in a new folder named to it
 * by `variable`. `afterFirst` looks at the cache and stops the first server; what it returns runs
 * once the second has answered from the cached code.
 */
async function startTwice(
  variable: string,
  afterFirst: (cache: string, first: BuiltServer) => Promise<() => Promise<void>>,
): Promise<void> {
  const store = await makeStore('sqlite');
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-code-cache-'));
  const env = { ANNOTARY_DATA_DIR: store.dataDir, ANNOTARY_BOOTSTRAP_API_KEY: KEY, [variable]: cache };
  try {
    const first = await startBuiltServer(env);
    let check: () => Promise<void>;
    try {
      check = await afterFirst(cache, first);
    } finally {
      await first.stop();
    }
    const second = await startBuiltServer(env);
    try {
      await answersFromCachedCode(second.url);
      await check();
    } finally {
      await second.stop();
    }
  } finally {
    await store.cleanup();
    fs.rmSync(cache, { recursive: true, force: true });
  }
}

/** The restarted server answers: an API read, and the docs page, whose module the bundle requires on its first request. */
async function answersFromCachedCode(url: string): Promise<void> {
  const projects = await fetch(`${url}/v2/listProjects`, { headers: { apikey: KEY } });
  expect(projects.status).toBe(200);
  expect(await projects.json()).toMatchObject({ status: 'success' });
  const docs = await fetch(`${url}/docs/`);
  expect(docs.status).toBe(200);
  expect(await docs.text()).toContain('swagger-ui');
}
