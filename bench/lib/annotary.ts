import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SERVER_CORE } from './cpu.js';
import { type BenchSchema, createBenchSchema } from './postgres.js';
import { freePort, type ServerProcess, startServerProcess } from './server-process.js';
import type { Engine } from './types.js';

/**
 * A real Annotary server for a benchmark: `node --import tsx src/cli/index.ts serve` (or, with
 * `runtime: 'built'`, `node dist/cli/index.js serve` as `npm start` runs it) in a child process
 * pinned to the server core, on a fresh store (a new temp data folder; on PostgreSQL
 * also a new schema), with a known API key whose organization is on the enterprise plan with a
 * limit no benchmark reaches. Set-up goes through the `annotary` CLI, as an operator would:
 *
 *   orgs create --name Benchmarks           -> organization id
 *   orgs plan <id> enterprise --limit 1e8
 *   users create --email <owner> --org <id> --role owner
 *   serve  (ANNOTARY_BOOTSTRAP_API_KEY gives that owner the known key)
 */

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BENCH_API_KEY = 'ak_bench_0123456789abcdefghijklmnop';
export const BENCH_OWNER_EMAIL = 'bench-owner@annotary.local';
/** Fixed so the CLI prints nothing about generating one, and every process agrees. */
export const BENCH_SECRET_KEY = '42'.repeat(32);
const ENTERPRISE_LIMIT = 100_000_000;

const run = promisify(execFile);

export interface AnnotaryOptions {
  engine: Engine;
  /** More environment for the server (and the CLI): ANNOTARY_RUN_WORKER, ... */
  env?: Record<string, string>;
  /** Extra node flags before the entry point, e.g. --cpu-prof. */
  nodeFlags?: string[];
  core?: number;
  /**
   * `source` (default): the TypeScript sources through tsx, as every benchmark has always run.
   * `built`: the compiled `dist/`, as users run it (`npm start`); built once per benchmark run.
   * tsx keeps its compiler and a transformed copy of every module in the server's memory (about
   * 70 MiB of RSS at idle on this machine): a benchmark of memory measures the built server.
   */
  runtime?: Runtime;
  /**
   * With `runtime: 'built'`: another built command to run instead of dist/cli/index.js (say, a
   * copy of another tree's bundle beside this one's node_modules); nothing is built then.
   */
  builtEntry?: string;
}

export type Runtime = 'source' | 'built';

export interface AnnotaryServer {
  engine: Engine;
  url: string;
  apiKey: string;
  orgId: string;
  dataDir: string;
  /** Set on PostgreSQL. */
  schema: BenchSchema | undefined;
  process: ServerProcess;
  /** Calls the API with the key; throws with the answer's message on a non-2xx. */
  api<T = unknown>(method: string, urlPath: string, body?: unknown): Promise<T>;
  /** Stops the server, removes the data folder and drops the schema; answers the peak RSS. */
  stop(): Promise<{ peakRssBytes: number }>;
}

/** The node arguments that run the `annotary` command: the sources through tsx, or dist/. */
function entry(runtime: Runtime, builtEntry = 'dist/cli/index.js'): string[] {
  return runtime === 'built' ? [builtEntry] : ['--import', 'tsx', 'src/cli/index.ts'];
}

let built: Promise<void> | undefined;

/**
 * Compiles src/ to dist/ and bundles the command (`npm run build:server`), once per benchmark run. Type errors are printed, not
 * fatal: tsc still writes the JavaScript, which is what tsx would have run from the same tree.
 */
export function buildOnce(): Promise<void> {
  built ??= (async () => {
    const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    process.stdout.write(
      '  building dist/ (tsc -p tsconfig.build.json, then the bundled command) for the built server\n',
    );
    await run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT }).catch(
      (err: Error & { stdout?: string }) => {
        if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'cli', 'index.js'))) throw err;
        const errors = (err.stdout ?? '').trim().split('\n');
        process.stdout.write(`  tsc reported ${errors.length} line(s) of type errors; dist/ was written anyway:\n`);
        process.stdout.write(
          errors
            .slice(0, 5)
            .map((l) => `    ${l}\n`)
            .join(''),
        );
      },
    );
    // dist/cli/index.js as `npm run build` makes it: the bundle (scripts/bundle-cli.mjs).
    await run(process.execPath, [path.join(REPO_ROOT, 'scripts', 'bundle-cli.mjs')], { cwd: REPO_ROOT });
  })();
  return built;
}

async function cli(command: string[], env: Record<string, string>, args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, [...command, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  }).catch((err: Error & { stderr?: string }) => {
    throw new Error(`annotary ${args.join(' ')} failed: ${err.stderr?.trim() || err.message}`);
  });
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(`annotary ${args.join(' ')} printed something that is not JSON:\n${stdout}`);
  }
}

export async function startAnnotary(opts: AnnotaryOptions): Promise<AnnotaryServer> {
  const runtime = opts.runtime ?? 'source';
  if (runtime === 'built' && !opts.builtEntry) await buildOnce();
  const command = entry(runtime, opts.builtEntry);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-bench-'));
  const schema = opts.engine === 'postgres' ? await createBenchSchema() : undefined;
  const port = await freePort();
  const env: Record<string, string> = {
    ANNOTARY_DATA_DIR: dataDir,
    ANNOTARY_SECRET_KEY: BENCH_SECRET_KEY,
    ANNOTARY_BOOTSTRAP_API_KEY: BENCH_API_KEY,
    ANNOTARY_BOOTSTRAP_EMAIL: BENCH_OWNER_EMAIL,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    ...(schema ? { DATABASE_URL: schema.databaseUrl } : {}),
    ...opts.env,
  };
  const cleanup = async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await schema?.drop();
  };

  let server: ServerProcess;
  let orgId: string;
  try {
    const org = (await cli(command, env, ['orgs', 'create', '--name', 'Benchmarks'])) as { id: string };
    orgId = org.id;
    await cli(command, env, ['orgs', 'plan', orgId, 'enterprise', '--limit', String(ENTERPRISE_LIMIT)]);
    await cli(command, env, ['users', 'create', '--email', BENCH_OWNER_EMAIL, '--org', orgId, '--role', 'owner']);
    server = await startServerProcess({
      label: `annotary (${opts.engine})`,
      command: process.execPath,
      args: [...(opts.nodeFlags ?? []), ...command, 'serve'],
      cwd: REPO_ROOT,
      env,
      port,
      healthPath: '/healthz',
      core: opts.core ?? SERVER_CORE,
    });
  } catch (err) {
    await cleanup();
    throw err;
  }

  const api = async <T>(method: string, urlPath: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}/v2${urlPath}`, {
      method,
      headers: { apikey: BENCH_API_KEY, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${urlPath} answered ${res.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  };

  return {
    engine: opts.engine,
    url: server.url,
    apiKey: BENCH_API_KEY,
    orgId,
    dataDir,
    schema,
    process: server,
    api,
    async stop() {
      const { peakRssBytes } = await server.stop();
      await cleanup();
      return { peakRssBytes };
    },
  };
}
