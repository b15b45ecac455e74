import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVER_CORE, pinnedCommand } from './cpu.js';
import { samplePeakRss } from './memory.js';

/**
 * A server under test, as a real child process pinned to the server core: spawn it, wait until
 * it answers its health path, sample its peak memory, stop it. taskset execs the command, so
 * the pid we hold is the server's own (its /proc/<pid>/status is the server's memory).
 */

export interface ServerProcessOptions {
  /** For messages: "annotary", "bare fastify"... */
  label: string;
  command: string;
  args: string[];
  /** Added to (not replacing) this process's environment. */
  env: Record<string, string>;
  port: number;
  /** Path that answers 200 once the server is ready. */
  healthPath: string;
  cwd?: string;
  core?: number;
  startTimeoutMs?: number;
}

export interface ServerProcess {
  label: string;
  pid: number;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Peak RSS (VmHWM) so far, bytes. */
  peakRssBytes(): number;
  /** The last 16 KiB of the process's stdout and stderr, for error messages. */
  output(): string;
  /** SIGTERM, then SIGKILL after 10 s; answers the peak RSS. Safe to call twice. */
  stop(): Promise<{ peakRssBytes: number; exitCode: number | null }>;
}

/** A TCP port that was free a moment ago (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function keepTail(child: ChildProcess): () => string {
  let tail = '';
  const add = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-16_384);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => tail;
}

export async function startServerProcess(opts: ServerProcessOptions): Promise<ServerProcess> {
  const { command, args } = pinnedCommand(opts.core ?? SERVER_CORE, opts.command, opts.args);
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = keepTail(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  if (child.pid === undefined) {
    await new Promise((r) => child.once('error', r));
    throw new Error(`${opts.label}: could not start ${command}`);
  }
  const pid = child.pid;
  const url = `http://127.0.0.1:${opts.port}`;
  const sampler = samplePeakRss(pid);

  let stopped: Promise<{ peakRssBytes: number; exitCode: number | null }> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      const peakRssBytes = sampler.stop();
      if (!hasExited) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      return { peakRssBytes, exitCode: await exited };
    })();
    return stopped;
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  for (;;) {
    if (hasExited) {
      await stop();
      throw new Error(`${opts.label} exited before it was ready:\n${output()}`);
    }
    try {
      const res = await fetch(url + opts.healthPath, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${opts.label} did not answer ${opts.healthPath} in time:\n${output()}`);
    }
    await sleep(100);
  }

  return { label: opts.label, pid, url, peakRssBytes: () => sampler.peakBytes(), output, stop };
}
