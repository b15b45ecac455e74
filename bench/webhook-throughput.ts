/**
 * Tasks per second through Start -> Webhook (secret) -> Complete on a real Annotary server
 * process: each task's delivery is built, signed, POSTed to a local receiver, answered 200, and
 * the task moved on to Complete. Next to it, in the same run, the raw rate of plain undici
 * POSTs of the same bytes with the same headers (the same signature, which the receiver checks
 * every time) to the same receiver from a Node process on the same core, with as many requests
 * in flight as the server's job worker runs deliveries.
 *
 * The window: from the moment the import that put the tasks in the Webhook stage has answered
 * (its transaction, deliveries included, has committed) to the moment the last task reached
 * Complete (its completed_at, read from the store). The import itself is outside; the wait
 * until the worker claims the first delivery, and everything after, is inside. The steady
 * rate (from the receiver's first request, as figures before 2026-11-22 were) is printed too.
 *
 *   npm run bench -- webhook-throughput [--engine both] [--tasks 10000]
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { openStore, type Store } from '../src/store/db.js';
import { WEBHOOK_CONNECTIONS_PER_ORIGIN, WORKER_CONCURRENCY } from '../src/job-handlers.js';
import { type AnnotaryServer, REPO_ROOT, startAnnotary } from './lib/annotary.js';
import { LOAD_CORE, SERVER_CORE, pinnedCommand } from './lib/cpu.js';
import { num } from './lib/format.js';
import { describeOtherCpu, watchOtherCpu } from './lib/interference.js';
import { cpuProfFlags, monotonicNowUs, profileDir, profileReport } from './lib/profile.js';
import { RESULTS_DIR } from './lib/results.js';
import { freePort, startServerProcess } from './lib/server-process.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

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

/** How many tasks are Complete, and when the last of them got there (epoch ms, server clock). */
async function completed(store: Store): Promise<{ n: number; lastAt: number }> {
  const row = await store.db
    .selectFrom('tasks')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('completed_at').as('last')])
    .where('stage_id', '=', 'Complete')
    .executeTakeFirstOrThrow();
  return { n: Number(row.n), lastAt: row.last ? Date.parse(String(row.last)) : 0 };
}

/**
 * Imports `count` tasks in requests of 10,000 and waits until `total` tasks are Complete.
 * Answers when the (last) import answered and when the last task reached Complete.
 */
async function pushAndWait(server: AnnotaryServer, store: Store, projectId: string, count: number, total: number) {
  let answeredAt = 0;
  let answeredUs = 0;
  for (let done = 0; done < count; done += 10_000) {
    const n = Math.min(10_000, count - done);
    const assets = Array.from({ length: n }, (_, i) => ({ data: `https://cdn.example.com/${total}-${done + i}.jpg` }));
    await server.api('POST', `/project/${projectId}/cloud`, { assets });
    answeredAt = Date.now();
    answeredUs = monotonicNowUs();
  }
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const c = await completed(store);
    if (c.n >= total) return { answeredAt, answeredUs, lastCompleteAt: c.lastAt };
    if (Date.now() > deadline) throw new Error('tasks did not all reach Complete within 10 minutes');
    await sleep(50);
  }
}

async function receiverStats(url: string, reset = false): Promise<ReceiverStats> {
  const res = await fetch(`${url}/${reset ? 'reset' : 'stats'}`);
  return (await res.json()) as ReceiverStats;
}

/** Plain POSTs of the sample (body and headers) from a Node process on the server's core. */
async function rawRate(url: string, sample: string, concurrency: number, seconds: number, ours: number[]) {
  const { command, args } = pinnedCommand(SERVER_CORE, process.execPath, [
    '--import',
    'tsx',
    'bench/servers/raw-poster.ts',
  ]);
  const watch = watchOtherCpu(ours);
  const { stdout } = await run$(command, args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      BENCH_URL: `${url}/hook`,
      BENCH_BODY: sample,
      BENCH_HEADERS: `${sample}.headers.json`,
      BENCH_CONCURRENCY: String(concurrency),
      BENCH_SECONDS: String(seconds),
    },
  });
  const r = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { requests: number; seconds: number };
  // The poster is gone by now: its CPU shows as short-lived, which is ours too.
  return { perSec: r.requests / r.seconds, otherCpu: watch.stop() };
}

async function run(opts: BenchOptions): Promise<Result> {
  const tasks = Number(opts.extra.tasks ?? 10_000);
  // The raw poster keeps as many requests in flight as Annotary's sender keeps connections to
  // one receiver; the worker runs more jobs than that, the others being in the store's hands.
  const concurrency = Number(opts.extra.concurrency ?? WEBHOOK_CONNECTIONS_PER_ORIGIN);
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
    const watch = watchOtherCpu([server.process.pid, receiver.pid, process.pid]);
    const pushed = await pushAndWait(server, store, projectId, tasks, warm + tasks);
    const { answeredAt, lastCompleteAt } = pushed;
    const otherCpu = watch.stop();
    const stats = await receiverStats(receiver.url);
    // The profile's window is the measured one: from the import's answer on.
    const window = { fromUs: pushed.answeredUs, toUs: monotonicNowUs() };
    if (stats.badSignatures > 0) throw new Error(`${stats.badSignatures} deliveries had a bad signature`);
    if (stats.requests < tasks) throw new Error(`the receiver saw ${stats.requests} of ${tasks} deliveries`);
    const seconds = (lastCompleteAt - answeredAt) / 1000;
    const annotary = tasks / seconds;
    const steadySeconds = (lastCompleteAt - stats.firstAt) / 1000;
    const steady = tasks / steadySeconds;
    const raw = await rawRate(receiver.url, sample, concurrency, opts.durationSec, [receiver.pid, process.pid]);
    const ratio = annotary / raw.perSec;
    const bytes = fs.statSync(sample).size;
    const notes = [
      `${tasks} tasks after ${warm} warm-up tasks; each delivery ${bytes} bytes, signed, checked by the receiver; ` +
        `Annotary's worker runs up to ${WORKER_CONCURRENCY} jobs, with at most ${WEBHOOK_CONNECTIONS_PER_ORIGIN} requests to one receiver`,
      `window: import answered -> last task Complete; the first delivery reached the receiver ` +
        `${Math.round(stats.firstAt - answeredAt)} ms after the import answered`,
      `other CPU (cores): during the tasks ${describeOtherCpu(otherCpu)}; during the raw POSTs ${describeOtherCpu(raw.otherCpu)}`,
    ];
    if (opts.engine === 'postgres')
      notes.push('on PostgreSQL the database backends are part of the work: they count as other CPU');
    if (profile) {
      await server.process.stop();
      notes.push('profiled run (--cpu-prof): the figures above are lower than an unprofiled run');
      notes.push(...profileReport('annotary', profile, REPO_ROOT, 20, [window]).lines);
    }
    return {
      table: {
        columns: ['sender', 'per second', 'requests in flight', 'body bytes', 'requests', 'seconds'],
        rows: [
          [
            `Annotary tasks (${opts.engine})`,
            Math.round(annotary),
            concurrency,
            bytes,
            stats.requests,
            seconds.toFixed(2),
          ],
          ['  steady (from first delivery)', Math.round(steady), concurrency, bytes, '-', steadySeconds.toFixed(2)],
          ['plain undici POSTs, same headers', Math.round(raw.perSec), concurrency, bytes, '-', opts.durationSec],
        ],
      },
      summary:
        `Webhook stage on ${opts.engine}: ${num(annotary)} tasks/s through Start -> Webhook (secret) -> Complete ` +
        `= ${ratio.toFixed(2)} x plain undici POSTs to the same receiver (${num(raw.perSec)} req/s); ` +
        `steady ${num(steady)} tasks/s = ${(steady / raw.perSec).toFixed(2)} x`,
      notes,
      data: {
        tasks,
        warm,
        concurrency,
        workerConcurrency: WORKER_CONCURRENCY,
        tasksPerSec: annotary,
        steadyPerSec: steady,
        rawPerSec: raw.perSec,
        ratio,
        seconds,
        steadySeconds,
        firstDeliveryAfterMs: stats.firstAt - answeredAt,
        otherCpu,
        rawOtherCpu: raw.otherCpu,
        receiver: stats,
        bytes,
      },
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
    'tasks/s through Start -> Webhook (secret) -> Complete against a local receiver vs plain undici POSTs of the same bytes and headers to it (--tasks N, default 10000)',
  run,
});
