/**
 * Tasks per second through Start -> Webhook (secret) -> Complete on a real Annotary server
 * process: each task's delivery is built, signed, POSTed to a local receiver, answered 200, and
 * the task moved on to Complete in its own transaction. Next to it, in the same run, the raw
 * rate of plain undici POSTs of the same bytes to the same receiver from a Node process on the
 * same core, with as many requests in flight as the server's job worker runs deliveries.
 *
 * The receiver (its own process, on the load core) checks every signature. The server's
 * figure runs from the receiver's first request to the moment the last task is Complete, so
 * the poll that wakes the worker is not counted; the import of the tasks is not either.
 *
 *   npm run bench -- webhook-throughput [--engine both] [--tasks 10000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore, type Store } from '../src/store/db.js';
import { WORKER_CONCURRENCY } from '../src/jobs/app-registry.js';
import { type AnnotaryServer, REPO_ROOT, startAnnotary } from './lib/annotary.js';
import { LOAD_CORE, SERVER_CORE, pinnedCommand } from './lib/cpu.js';
import { num } from './lib/format.js';
import { cpuProfFlags, monotonicNowUs, profileDir, profileReport } from './lib/profile.js';
import { RESULTS_DIR } from './lib/results.js';
import { freePort, startServerProcess } from './lib/server-process.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const SECRET = 'bench-webhook-secret';
const run$ = promisify(execFile);

interface ReceiverStats {
  requests: number;
  signed: number;
  badSignatures: number;
  firstAt: number;
  lastAt: number;
}

function workflow(url: string) {
  return [
    { id: 'Start', type: 'Start', next: ['Hook'] },
    {
      id: 'Hook',
      name: 'Notify',
      type: 'Webhook',
      next: ['Complete'],
      webhook: { url, authType: 'secret', secret: SECRET },
    },
    { id: 'Complete', type: 'Complete', next: [] },
  ];
}

async function storeOf(server: AnnotaryServer): Promise<Store> {
  if (server.schema) return openStore({ databaseUrl: server.schema.databaseUrl, poolSize: 1 });
  return openStore({ sqliteFile: path.join(server.dataDir, 'annotary.db') });
}

async function completeCount(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('stage_id', '=', 'Complete')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Imports `count` tasks in requests of 10,000 and waits until `total` tasks are Complete. */
async function pushAndWait(server: AnnotaryServer, store: Store, projectId: string, count: number, total: number) {
  for (let done = 0; done < count; done += 10_000) {
    const n = Math.min(10_000, count - done);
    const assets = Array.from({ length: n }, (_, i) => ({ data: `https://cdn.example.com/${total}-${done + i}.jpg` }));
    await server.api('POST', `/project/${projectId}/cloud`, { assets });
  }
  const deadline = Date.now() + 10 * 60_000;
  while ((await completeCount(store)) < total) {
    if (Date.now() > deadline) throw new Error('tasks did not all reach Complete within 10 minutes');
    await sleep(25);
  }
  return performance.timeOrigin + performance.now();
}

async function receiverStats(url: string, reset = false): Promise<ReceiverStats> {
  const res = await fetch(`${url}/${reset ? 'reset' : 'stats'}`);
  return (await res.json()) as ReceiverStats;
}

async function rawRate(url: string, bodyFile: string, concurrency: number, seconds: number) {
  const { command, args } = pinnedCommand(SERVER_CORE, process.execPath, [
    '--import',
    'tsx',
    'bench/servers/raw-poster.ts',
  ]);
  const { stdout } = await run$(command, args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      BENCH_URL: `${url}/hook`,
      BENCH_BODY: bodyFile,
      BENCH_CONCURRENCY: String(concurrency),
      BENCH_SECONDS: String(seconds),
    },
  });
  const r = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { requests: number; seconds: number };
  return r.requests / r.seconds;
}

async function run(opts: BenchOptions): Promise<Result> {
  const tasks = Number(opts.extra.tasks ?? 10_000);
  const concurrency = Number(opts.extra.concurrency ?? WORKER_CONCURRENCY);
  if (!Number.isInteger(tasks) || tasks < 100) throw new Error('--tasks must be a whole number >= 100');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-bench-hook-'));
  const sample = path.join(tmp, 'body.json');
  const port = await freePort();
  const receiver = await startServerProcess({
    label: 'webhook receiver',
    command: process.execPath,
    args: ['--import', 'tsx', 'bench/servers/webhook-receiver.ts'],
    cwd: REPO_ROOT,
    env: { PORT: String(port), BENCH_SECRET: SECRET, BENCH_SAMPLE_FILE: sample },
    port,
    healthPath: '/healthz',
    core: LOAD_CORE,
  });
  const profile = opts.profile ? profileDir(RESULTS_DIR, `webhook-throughput-${opts.engine}`) : undefined;
  const server = await startAnnotary({
    engine: opts.engine,
    env: { ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true' },
    nodeFlags: profile ? cpuProfFlags(profile) : [],
  });
  const store = await storeOf(server);
  try {
    const created = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', { name: 'Hooks' });
    const projectId = created.data.project._id;
    await server.api('POST', `/project/${projectId}`, { stages: workflow(`${receiver.url}/hook`) });

    // Warm-up: JIT, connection pools, the kept-alive connections to the receiver.
    const warm = Math.min(1_000, Math.ceil(tasks / 10));
    await pushAndWait(server, store, projectId, warm, warm);
    await receiverStats(receiver.url, true);
    const fromUs = monotonicNowUs();
    const finishedAt = await pushAndWait(server, store, projectId, tasks, warm + tasks);
    const stats = await receiverStats(receiver.url);
    const window = { fromUs, toUs: monotonicNowUs() };
    if (stats.badSignatures > 0) throw new Error(`${stats.badSignatures} deliveries had a bad signature`);
    if (stats.requests < tasks) throw new Error(`the receiver saw ${stats.requests} of ${tasks} deliveries`);
    const seconds = (finishedAt - stats.firstAt) / 1000;
    const annotary = tasks / seconds;
    const raw = await rawRate(receiver.url, sample, concurrency, opts.durationSec);
    const ratio = annotary / raw;
    const bytes = fs.statSync(sample).size;
    const notes = [
      `${tasks} tasks after ${warm} warm-up tasks; each delivery ${bytes} bytes, signed, checked by the receiver`,
    ];
    if (profile) {
      await server.process.stop();
      notes.push('profiled run (--cpu-prof): the figures above are lower than an unprofiled run');
      notes.push(...profileReport('annotary', profile, REPO_ROOT, 20, [window]).lines);
    }
    return {
      table: {
        columns: ['sender', 'per second', 'in flight', 'body bytes', 'requests', 'seconds'],
        rows: [
          [
            `Annotary tasks (${opts.engine})`,
            Math.round(annotary),
            concurrency,
            bytes,
            stats.requests,
            seconds.toFixed(2),
          ],
          ['plain undici POSTs', Math.round(raw), concurrency, bytes, '-', opts.durationSec],
        ],
      },
      summary:
        `Webhook stage on ${opts.engine}: ${num(annotary)} tasks/s through Start -> Webhook (secret) -> Complete ` +
        `= ${ratio.toFixed(2)} x plain undici POSTs to the same receiver (${num(raw)} req/s)`,
      notes,
      data: { tasks, warm, concurrency, tasksPerSec: annotary, rawPerSec: raw, ratio, seconds, receiver: stats, bytes },
    };
  } finally {
    await store.close();
    await server.stop();
    await receiver.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export default defineBenchmark({
  name: 'webhook-throughput',
  description:
    'tasks/s through Start -> Webhook (secret) -> Complete against a local receiver vs plain undici POSTs of the same bytes to it (--tasks N, default 10000)',
  run,
});
