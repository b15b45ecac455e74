import { type ChildProcess, execFile, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './wait.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The built command, as a user runs it after `npm run build` (or an install). */
export const BUILT_CLI = path.join(ROOT, 'dist/cli/index.js');

const exec = promisify(execFile);

/**
 * The server and CLI part of `npm run build` (`build:server`: tsc to dist/, then the bundle): the CLI tests run what users run,
 * never the sources. The console's build is left to the browser tests' global setup, which
 * serves dist/web while other files run.
 */
export async function buildOnce(): Promise<void> {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  await exec(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  // dist/cli/index.js as users get it: the bundle `npm run build` makes after tsc.
  await exec(process.execPath, [path.join(ROOT, 'scripts', 'bundle-cli.mjs')], { cwd: ROOT });
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/cli/index.js ...args` to its end, with `input` on standard input. */
export function runBuilt(args: string[], env: Record<string, string>, input?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface PtyRun {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/**
 * Runs the built command on a pseudo-terminal (util-linux `script`), so it sees a TTY as in a
 * person's shell. Killing `script` closes the terminal: the command gets SIGHUP, as when a
 * terminal window is closed.
 */
export function runBuiltOnPty(args: string[], env: Record<string, string>): PtyRun {
  const line = [process.execPath, BUILT_CLI, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qfec', line, '/dev/null'], {
    cwd: ROOT,
    env: { ...process.env, ...env, TERM: 'xterm', COLUMNS: '160' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

export interface BuiltServer {
  url: string;
  stop(): Promise<void>;
}

/** `node dist/cli/index.js serve` on a free port of 127.0.0.1, its public URL its real address. */
export async function startBuiltServer(env: Record<string, string>): Promise<BuiltServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [BUILT_CLI, 'serve'], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ANNOTARY_PUBLIC_URL: url, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  await waitFor(() => exited || /listening on/.test(out), 'the built server to listen', 60_000, 25);
  if (exited) throw new Error(`annotary serve exited early: ${out}`);
  return {
    url,
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await exit;
    },
  };
}
