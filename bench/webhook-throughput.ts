/**
 * Tasks per second through Start -> Webhook (secret) -> Complete on a real Annotary server
 * process: each task's delivery is built, signed, POSTed to a local receiver, answered 200, and
 * the task moved on to Complete. Next to it, alternated with it over `--rounds N` (default 3),
 * the raw rate of plain undici POSTs to the same receiver from a Node process on the same core,
 * with as many requests in flight as the server's sender keeps connections to one receiver:
 * each raw POST builds its own body (the sample delivery with its own task and delivery id) and
 * signs it, and the receiver checks every signature of both senders.
 *
 * The window: from the moment the import that put the tasks in the Webhook stage has answered
 * (its transaction, deliveries included, has committed) to the moment the last task reached
 * Complete (its completed_at, read from the store). The import itself is outside; the wait
 * until the worker claims the first delivery, and everything after, is inside. The steady
 * rate (from the receiver's first request, as figures before 2026-11-22 were) is printed too.
 *
 *   npm run bench -- webhook-throughput [--engine both] [--tasks 10000] [--rounds 3]
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore, type Store } from '../src/store/db.js';
import { WEBHOOK_CONNECTIONS_PER_ORIGIN, WORKER_CONCURRENCY } from '../src/job-handlers.js';
import { type AnnotaryServer, REPO_ROOT, startAnnotary } from './lib/annotary.js';
import { LOAD_CORE, SERVER_CORE, pinnedCommand } from './lib/cpu.js';
import { num } from './lib/format.js';
import { cpuSecondsOf, describeOtherCpu, type OtherCpu, watchOtherCpu } from './lib/interference.js';
import { cpuProfFlags, monotonicNowUs, profileDir, profileReport, type TimeWindow } from './lib/profile.js';
import { medianBy, roundsOption, spreadOf } from './lib/rounds.js';
import { RESULTS_DIR } from './lib/results.js';
import { freePort, type ServerProcess, startServerProcess } from './lib/server-process.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

export const SECRET = 'bench-webhook-secret';

interface ReceiverStats {
  requests: number;
  signed: number;
  badSignatures: number;
  firstAt: number;
  lastAt: number;
}

export function workflow(url: string) {
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

/** The webhook receiver (bench/servers/webhook-receiver.ts) on the load core, checking signatures made with SECRET. */
export async function startReceiver(env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  return startServerProcess({
    label: 'webhook receiver',
    command: process.execPath,
    args: ['--import', 'tsx', 'bench/servers/webhook-receiver.ts'],
    cwd: REPO_ROOT,
    env: { PORT: String(port), BENCH_SECRET: SECRET, ...env },
    port,
    healthPath: '/healthz',
    core: LOAD_CORE,
  });
}

export async function storeOf(server: AnnotaryServer): Promise<Store> {
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
export async function pushAndWait(
  server: AnnotaryServer,
  store: Store,
  projectId: string,
  count: number,
  total: number,
) {
  let answeredAt = 0;
  let answeredUs = 0;
  let cpuAtAnswer = 0;
  for (let done = 0; done < count; done += 10_000) {
    const n = Math.min(10_000, count - done);
    const assets = Array.from({ length: n }, (_, i) => ({ data: `https://cdn.example.com/${total}-${done + i}.jpg` }));
    await server.api('POST', `/project/${projectId}/cloud`, { assets });
    answeredAt = Date.now();
    answeredUs = monotonicNowUs();
    cpuAtAnswer = cpuSecondsOf([server.process.pid]);
  }
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const c = await completed(store);
    if (c.n >= total) {
      // The server's CPU from the import's answer on: the deliveries (and the idle polls of the
      // last 50 ms), in seconds of /proc's 10 ms ticks.
      const serverCpuSeconds = cpuSecondsOf([server.process.pid]) - cpuAtAnswer;
      return { answeredAt, answeredUs, lastCompleteAt: c.lastAt, serverCpuSeconds };
    }
    if (Date.now() > deadline) throw new Error('tasks did not all reach Complete within 10 minutes');
    await sleep(50);
  }
}

export async function receiverStats(url: string, reset = false): Promise<ReceiverStats> {
  const res = await fetch(`${url}/${reset ? 'reset' : 'stats'}`);
  return (await res.json()) as ReceiverStats;
}

/**
 * Plain POSTs from a Node process on the server's core: each one a body of its own built from the
 * sample and signed (bench/servers/raw-poster.ts). The poster is one of ours: its CPU is not
 * "other"; the receiver checks every signature.
 */
async function rawRound(receiverUrl: string, sample: string, concurrency: number, seconds: number, ours: number[]) {
  const { command, args } = pinnedCommand(SERVER_CORE, process.execPath, [
    '--import',
    'tsx',
    'bench/servers/raw-poster.ts',
  ]);
  await receiverStats(receiverUrl, true);
  const child = execFile(command, args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      BENCH_URL: `${receiverUrl}/hook`,
      BENCH_BODY: sample,
      BENCH_HEADERS: `${sample}.headers.json`,
      BENCH_SECRET: SECRET,
      BENCH_CONCURRENCY: String(concurrency),
      BENCH_SECONDS: String(seconds),
    },
  });
  // The poster has exited when the watch stops, so /proc no longer shows it: its CPU, which it
  // reports itself, is taken off the short-lived share.
  const startedAt = Date.now();
  const watch = watchOtherCpu(ours);
  let stdout = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-4000)));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const watched = watch.stop();
  const elapsed = (Date.now() - startedAt) / 1000;
  if (code !== 0) throw new Error(`the raw poster exited ${code}: ${stderr}`);
  const r = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
    requests: number;
    seconds: number;
    cpuSeconds: number;
  };
  const otherCpu = withoutShortLived(watched, r.cpuSeconds / elapsed);
  const stats = await receiverStats(receiverUrl);
  if (stats.badSignatures > 0 || stats.signed !== stats.requests) {
    throw new Error(`raw POSTs: ${stats.signed} of ${stats.requests} signed, ${stats.badSignatures} bad signatures`);
  }
  return { perSec: r.requests / r.seconds, requests: r.requests, otherCpu };
}

/** `o` with `cores` taken off its short-lived share (a process of ours that has exited). */
function withoutShortLived(o: OtherCpu | undefined, cores: number): OtherCpu | undefined {
  if (!o) return o;
  const round2 = (n: number) => Math.max(0, Math.round(n * 100) / 100);
  const top = o.top
    .map((t) => (t.name === '(short-lived)' ? { ...t, cores: round2(t.cores - cores) } : t))
    .filter((t) => t.cores >= 0.05);
  return { cores: round2(o.cores - cores), top };
}

export interface TaskRound {
  perSec: number;
  steadyPerSec: number;
  seconds: number;
  steadySeconds: number;
  firstDeliveryAfterMs: number;
  requests: number;
  otherCpu: OtherCpu | undefined;
  window: TimeWindow;
  /** The server process's CPU per task (all its threads), from the import's answer on. */
  serverCpuUsPerTask: number;
}

/** One Annotary round: `tasks` more tasks through the Webhook stage, timed from the import's answer. */
export async function taskRound(
  server: AnnotaryServer,
  store: Store,
  receiverUrl: string,
  projectId: string,
  tasks: number,
  total: number,
  ours: number[],
): Promise<TaskRound> {
  await receiverStats(receiverUrl, true);
  const watch = watchOtherCpu(ours);
  const pushed = await pushAndWait(server, store, projectId, tasks, total);
  const otherCpu = watch.stop();
  const stats = await receiverStats(receiverUrl);
  // The profile's window is the measured one: from the import's answer on.
  const window = { fromUs: pushed.answeredUs, toUs: monotonicNowUs() };
  if (stats.badSignatures > 0) throw new Error(`${stats.badSignatures} deliveries had a bad signature`);
  if (stats.requests < tasks) throw new Error(`the receiver saw ${stats.requests} of ${tasks} deliveries`);
  const seconds = (pushed.lastCompleteAt - pushed.answeredAt) / 1000;
  const steadySeconds = (pushed.lastCompleteAt - stats.firstAt) / 1000;
  return {
    perSec: tasks / seconds,
    steadyPerSec: tasks / steadySeconds,
    seconds,
    steadySeconds,
    firstDeliveryAfterMs: stats.firstAt - pushed.answeredAt,
    requests: stats.requests,
    otherCpu,
    window,
    serverCpuUsPerTask: (pushed.serverCpuSeconds * 1e6) / tasks,
  };
}

async function run(opts: BenchOptions): Promise<Result> {
  const tasks = Number(opts.extra.tasks ?? 10_000);
  const rounds = roundsOption(opts.extra);
  // The raw poster keeps as many requests in flight as Annotary's sender keeps connections to
  // one receiver; the worker runs more jobs than that, the others being in the store's hands.
  const concurrency = Number(opts.extra.concurrency ?? WEBHOOK_CONNECTIONS_PER_ORIGIN);
  if (!Number.isInteger(tasks) || tasks < 100) throw new Error('--tasks must be a whole number >= 100');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-bench-hook-'));
  const sample = path.join(tmp, 'body.json');
  const receiver = await startReceiver({ BENCH_SAMPLE_FILE: sample });
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
    const ours = [server.process.pid, receiver.pid, process.pid];
    const annotary: TaskRound[] = [];
    const raw: Awaited<ReturnType<typeof rawRound>>[] = [];
    for (let r = 0; r < rounds; r++) {
      annotary.push(await taskRound(server, store, receiver.url, projectId, tasks, warm + (r + 1) * tasks, ours));
      raw.push(await rawRound(receiver.url, sample, concurrency, opts.durationSec, [receiver.pid, process.pid]));
      process.stdout.write(
        `  round ${r + 1}: ${num(annotary[r]?.perSec ?? 0)} tasks/s, ${num(raw[r]?.perSec ?? 0)} raw POSTs/s\n`,
      );
    }
    const a = medianBy(annotary, (x) => x.perSec);
    const steady = medianBy(annotary, (x) => x.steadyPerSec);
    const b = medianBy(raw, (x) => x.perSec);
    const ratio = a.perSec / b.perSec;
    const ratios = annotary.map((x, i) => x.perSec / (raw[i]?.perSec ?? Number.NaN));
    const bytes = fs.statSync(sample).size;
    const others = (list: { otherCpu: OtherCpu | undefined }[]) =>
      list.map((x) => describeOtherCpu(x.otherCpu)).join('; ');
    const notes = [
      `${rounds} alternating rounds of ${num(tasks)} tasks and ${opts.durationSec} s of raw POSTs, after ${warm} warm-up tasks; ` +
        `the table shows each side's median round and the range of its rounds`,
      `ratio per round: ${ratios.map((x) => x.toFixed(2)).join(', ')}`,
      `each delivery ${bytes} bytes, signed, checked by the receiver; each raw POST its own body and signature; ` +
        `Annotary's worker runs up to ${WORKER_CONCURRENCY} jobs, with at most ${WEBHOOK_CONNECTIONS_PER_ORIGIN} requests to one receiver`,
      `window: import answered -> last task Complete; the first delivery reached the receiver ` +
        `${annotary.map((x) => Math.round(x.firstDeliveryAfterMs)).join(', ')} ms after the import answered`,
      'other CPU (cores) in each round:',
      `  during the tasks:     ${others(annotary)}`,
      `  during the raw POSTs: ${others(raw)}`,
    ];
    if (opts.engine === 'postgres')
      notes.push('on PostgreSQL the database backends are part of the work: they count as other CPU');
    if (profile) {
      await server.process.stop();
      notes.push('profiled run (--cpu-prof): the figures above are lower than an unprofiled run');
      notes.push(
        ...profileReport(
          'annotary',
          profile,
          REPO_ROOT,
          20,
          annotary.map((x) => x.window),
        ).lines,
      );
    }
    const whole = (n: number) => num(Math.round(n));
    return {
      table: {
        columns: ['sender', 'per second', 'rounds', 'requests in flight', 'body bytes', 'seconds'],
        rows: [
          [
            `Annotary tasks (${opts.engine})`,
            Math.round(a.perSec),
            spreadOf(
              annotary.map((x) => x.perSec),
              whole,
            ),
            concurrency,
            bytes,
            a.seconds.toFixed(2),
          ],
          [
            '  steady (from first delivery)',
            Math.round(steady.steadyPerSec),
            spreadOf(
              annotary.map((x) => x.steadyPerSec),
              whole,
            ),
            concurrency,
            bytes,
            steady.steadySeconds.toFixed(2),
          ],
          [
            'plain undici POSTs, each signed',
            Math.round(b.perSec),
            spreadOf(
              raw.map((x) => x.perSec),
              whole,
            ),
            concurrency,
            bytes,
            opts.durationSec,
          ],
        ],
      },
      summary:
        `Webhook stage on ${opts.engine}: ${num(a.perSec)} tasks/s through Start -> Webhook (secret) -> Complete ` +
        `= ${ratio.toFixed(2)} x plain signed undici POSTs to the same receiver (${num(b.perSec)} req/s), ` +
        `medians of ${rounds} alternated rounds (ratios ${ratios.map((x) => x.toFixed(2)).join(', ')})`,
      notes,
      data: {
        tasks,
        warm,
        rounds,
        concurrency,
        workerConcurrency: WORKER_CONCURRENCY,
        tasksPerSec: a.perSec,
        steadyPerSec: steady.steadyPerSec,
        rawPerSec: b.perSec,
        ratio,
        ratios,
        annotaryRounds: annotary,
        rawRounds: raw,
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
    'tasks/s through Start -> Webhook (secret) -> Complete against a local receiver vs plain undici POSTs, each with its own body and signature, alternated over rounds (--tasks N, default 10000; --rounds N, default 3)',
  run,
});
