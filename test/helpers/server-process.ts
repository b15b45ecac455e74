import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './wait.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(ROOT, 'src/cli/index.ts');

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  /** Stops the process with the signal and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A store URL a child process can use to reach a test PostgreSQL schema. */
export function childDatabaseUrl(databaseUrl: string, pgSchema: string): string {
  return `${databaseUrl}?options=${encodeURIComponent(`-c search_path=${pgSchema}`)}`;
}

/** Runs the annotary CLI to completion (migrate, users, keys, orgs); `input` is piped to its stdin. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `annotary serve` (or another command) and waits until it says it listens. */
export async function startServerProcess(env: Record<string, string>, command = 'serve'): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, command], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  let exited = false;
  const exit = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      exited = true;
      resolve(code);
    }),
  );
  const ready = command === 'serve' ? /listening on (http:\/\/\S+)/ : /worker \S+ running/;
  await waitFor(() => exited || ready.test(out), `${command} to start`, 60_000, 25);
  if (exited) throw new Error(`annotary ${command} exited early: ${err || out}`);
  const url = command === 'serve' ? (ready.exec(out)?.[1] ?? '') : '';
  return {
    child,
    url,
    stdout: () => out,
    stderr: () => err,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (!exited) child.kill(signal);
      return exit;
    },
  };
}
