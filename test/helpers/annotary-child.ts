import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestStore } from './stores.js';

/**
 * The real `annotary` CLI in a child process (`node --import tsx src/cli/index.ts <command>`),
 * on a test store, for tests that kill servers and workers. Output is kept for error messages.
 */

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHILD_API_KEY = 'ak_child_test_0123456789abcdef';

export interface AnnotaryChild {
  proc: ChildProcess;
  /** The first stdout line matching, within the bound. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  output(): string;
  /** Sends the signal and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Environment that points a child at the test store. */
export function storeEnv(store: TestStore): Record<string, string> {
  if (store.databaseUrl && store.pgSchema) {
    return {
      DATABASE_URL: `${store.databaseUrl}?options=-c%20search_path%3D${store.pgSchema}`,
      ANNOTARY_DATA_DIR: store.dataDir,
    };
  }
  // The server's SQLite file is <data dir>/annotary.db: the test store's own file.
  return { ANNOTARY_DATA_DIR: store.dataDir };
}

export function spawnAnnotary(command: string[], env: Record<string, string>): AnnotaryChild {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', ...command], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ANNOTARY_SECRET_KEY: '17'.repeat(32),
      ANNOTARY_BOOTSTRAP_API_KEY: CHILD_API_KEY,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  let partial = '';
  proc.stdout?.on('data', (d: Buffer) => {
    out = (out + d.toString()).slice(-20_000);
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const w of waiters.splice(0)) w();
  });
  proc.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.once('exit', () => {
    for (const w of waiters.splice(0)) w();
  });
  return {
    proc,
    output: () => out,
    async waitForLine(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (const line of lines) {
          const m = line.match(pattern);
          if (m) return m;
        }
        if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`child exited:\n${out}`);
        if (Date.now() > deadline) throw new Error(`no line matching ${pattern} in ${timeoutMs} ms:\n${out}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    async kill(signal) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill(signal);
      await exited;
    },
  };
}

/** `annotary serve`; answers the child and its base URL once it listens. */
export async function startServe(env: Record<string, string>): Promise<{ child: AnnotaryChild; url: string }> {
  const child = spawnAnnotary(['serve'], env);
  const m = await child.waitForLine(/Annotary listening on (http:\/\/\S+)/);
  return { child, url: m[1] as string };
}
