import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from './annotary.js';
import { readMemory } from './memory.js';

/**
 * The processes of the soak (bench/soak.ts): API and worker processes of the built server
 * (`node dist/cli/index.js serve|worker`), each a real child process whose RSS is read from
 * /proc when it is ready and when the soak ends; and the webhook receiver, in this process.
 */

export interface FleetProcess {
  name: string;
  /** One entry per start: a killed and restarted process has two. */
  lives: { pid: number; rssStartBytes: number; rssEndBytes: number | undefined; killed: boolean }[];
  url: string | undefined;
  start(): Promise<void>;
  /** SIGKILL, no goodbye: what a crash or an OOM kill does. */
  kill(): Promise<void>;
  /** Reads the end RSS, then SIGTERM (SIGKILL after 10 s). */
  stop(): Promise<void>;
  output(): string;
}

export function fleetProcess(
  name: string,
  command: 'serve' | 'worker',
  env: Record<string, string>,
  port?: number,
): FleetProcess {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let tail = '';
  const lives: FleetProcess['lives'] = [];
  const url = port === undefined ? undefined : `http://127.0.0.1:${port}`;
  const ready = command === 'serve' ? /listening on/ : /worker \S+ running/;
  return {
    name,
    lives,
    url,
    output: () => tail,
    async start() {
      const proc = spawn(process.execPath, ['dist/cli/index.js', command], {
        cwd: REPO_ROOT,
        env: { ...process.env, ...env, ...(port === undefined ? {} : { PORT: String(port), HOST: '127.0.0.1' }) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      let out = '';
      const add = (d: Buffer) => {
        out += d.toString();
        tail = (tail + d.toString()).slice(-8_192);
      };
      proc.stdout.on('data', add);
      proc.stderr.on('data', add);
      let gone = false;
      exited = new Promise((resolve) =>
        proc.once('exit', () => {
          gone = true;
          resolve();
        }),
      );
      const deadline = Date.now() + 300_000; // minutes on a busy shared machine
      while (!ready.test(out)) {
        if (gone) throw new Error(`${name} exited before it was ready:\n${tail}`);
        if (Date.now() > deadline) throw new Error(`${name} did not start in time:\n${tail}`);
        await sleep(50);
      }
      const pid = proc.pid ?? 0;
      lives.push({ pid, rssStartBytes: readMemory(pid)?.rssBytes ?? NaN, rssEndBytes: undefined, killed: false });
    },
    async kill() {
      const life = lives.at(-1);
      if (life) {
        life.rssEndBytes = readMemory(life.pid)?.rssBytes;
        life.killed = true;
      }
      child?.kill('SIGKILL');
      await exited;
    },
    async stop() {
      const life = lives.at(-1);
      if (life && !life.killed && life.rssEndBytes === undefined) life.rssEndBytes = readMemory(life.pid)?.rssBytes;
      child?.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface SoakReceiver {
  url: string;
  /** Requests per task id, and how many of them were answered 200. */
  byTask: Map<string, { requests: number; ok: number }>;
  requests(): number;
  failed(): number;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that answers 500 to `failShare` of the requests, at random. */
export async function startSoakReceiver(failShare: number): Promise<SoakReceiver> {
  const byTask = new Map<string, { requests: number; ok: number }>();
  let requests = 0;
  let failed = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests++;
      let taskId = 'unknown';
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { task?: { taskId?: string } };
        taskId = body.task?.taskId ?? 'unknown';
      } catch {
        // counted under "unknown"
      }
      const entry = byTask.get(taskId) ?? { requests: 0, ok: 0 };
      byTask.set(taskId, entry);
      entry.requests++;
      if (Math.random() < failShare) {
        failed++;
        res.writeHead(500).end('planned failure');
        return;
      }
      entry.ok++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    byTask,
    requests: () => requests,
    failed: () => failed,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
