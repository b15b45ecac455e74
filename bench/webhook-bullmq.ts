/**
 * The Webhook stage against the queue a team would build instead: tasks per
 * second through Start -> Webhook (secret) -> Complete on a real Annotary server, alternated
 * over `--rounds N` (default 3) with a BullMQ worker on Redis (bench/servers/bullmq-worker.ts:
 * concurrency 50, Annotary's payload builder and signature per job, undici POSTs) delivering
 * as many jobs to the same receiver. Both pinned to the server core; the receiver and this
 * runner on the other; Redis, like PostgreSQL, is a shared service and unpinned (its CPU shows
 * as other CPU). BullMQ is installed at run time outside the project (bench/lib/bullmq.ts).
 *
 * Annotary's window: from the import's answer (the tasks and their deliveries committed) to the
 * last task's completed_at. BullMQ's: from addBulk's answer (the jobs in Redis) to the last
 * job's finishedOn. Annotary's also covers what the queue does not: the task's move, its
 * history entry and its log line, durable in the store. So each round also runs a second
 * baseline, the issue's own: the same worker committing one transaction per delivered job to a
 * store of the engine's kind (a SQLite file in WAL, or a PostgreSQL schema of its own) with the
 * task's move, a history entry and a log line.
 *
 *   npm run bench -- webhook-bullmq [--engine both] [--tasks 10000] [--rounds 3]
 */
import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HISTORY_META, TASK_COLUMNS } from '../src/services/webhooks/webhook-payload.js';
import type { Store } from '../src/store/db.js';
import { type AnnotaryServer, REPO_ROOT, startAnnotary } from './lib/annotary.js';
import { type BullMq, BULLMQ_VERSION, bullmqEntry, loadBullMq, redisConnection } from './lib/bullmq.js';
import { num } from './lib/format.js';
import { type BenchSchema, createBenchSchema } from './lib/postgres.js';
import { cpuSecondsOf, describeOtherCpu, type OtherCpu, watchOtherCpu } from './lib/interference.js';
import { medianBy, roundsOption, spreadOf } from './lib/rounds.js';
import { freePort, type ServerProcess, startServerProcess } from './lib/server-process.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';
import {
  pushAndWait,
  SECRET,
  startReceiver,
  storeOf,
  taskRound,
  type TaskRound,
  workflow,
} from './webhook-throughput.js';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BULLMQ_CONCURRENCY = 50;

/** What a delivery of the project sends, read from Annotary's store: the worker's template. */
async function subjectTemplate(store: Store, projectId: string) {
  const project = await store.db
    .selectFrom('projects')
    .selectAll()
    .where('id', '=', projectId)
    .executeTakeFirstOrThrow();
  const task = await store.db
    .selectFrom('tasks')
    .select(TASK_COLUMNS)
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  const asset = await store.db
    .selectFrom('assets')
    .select(['id', 'external_id', 'data', 'metadata'])
    .where('id', '=', task.asset_id)
    .executeTakeFirstOrThrow();
  // The history a delivery carries: the task's entries up to the Webhook stage (Start's).
  const history = await store.db
    .selectFrom('task_history')
    .select([...HISTORY_META])
    .where('task_id', '=', task.id)
    .where('stage_id', '=', 'Start')
    .execute();
  const stage = (JSON.parse(project.stages) as { id: string }[]).find((s) => s.id === 'Hook');
  return { task: { ...task, stage_id: 'Hook' }, project, stage, asset, batches: [], history };
}

interface QueueRound {
  perSec: number;
  seconds: number;
  otherCpu: OtherCpu | undefined;
  /** The worker process's CPU per job, from addBulk's answer on. */
  workerCpuUsPerJob: number;
}

async function queueRound(
  queue: InstanceType<BullMq['Queue']>,
  count: number,
  total: number,
  ours: number[],
  workerPid: number,
  /** Writes the tasks the jobs will move (the durable worker's), before the round starts. */
  seed?: (taskIds: string[]) => Promise<void>,
): Promise<QueueRound> {
  const jobs = Array.from({ length: count }, (_, i) => ({
    name: 'deliver',
    data: { taskId: `${String(total).padStart(12, '0')}${String(i).padStart(12, '0')}` },
  }));
  await seed?.(jobs.map((j) => j.data.taskId));
  const watch = watchOtherCpu(ours);
  for (let i = 0; i < jobs.length; i += 1_000) await queue.addBulk(jobs.slice(i, i + 1_000));
  const addedAt = Date.now();
  const cpuAtAdded = cpuSecondsOf([workerPid]);
  const deadline = addedAt + 10 * 60_000;
  for (;;) {
    const counts = await queue.getJobCounts('completed', 'failed');
    if ((counts.failed ?? 0) > 0) throw new Error(`${counts.failed} BullMQ jobs failed`);
    if ((counts.completed ?? 0) >= total) break;
    if (Date.now() > deadline) throw new Error('the BullMQ jobs did not all complete within 10 minutes');
    await sleep(50);
  }
  const workerCpuUsPerJob = ((cpuSecondsOf([workerPid]) - cpuAtAdded) * 1e6) / count;
  const otherCpu = watch.stop();
  const [last] = await queue.getJobs(['completed'], 0, 0, false);
  const seconds = ((last?.finishedOn ?? Date.now()) - addedAt) / 1000;
  return { perSec: count / seconds, seconds, otherCpu, workerCpuUsPerJob };
}

async function run(opts: BenchOptions): Promise<Result> {
  const tasks = Number(opts.extra.tasks ?? 10_000);
  if (!Number.isInteger(tasks) || tasks < 100) throw new Error('--tasks must be a whole number >= 100');
  const rounds = roundsOption(opts.extra);
  const entry = await bullmqEntry();
  const { Queue } = await loadBullMq();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-bench-bullmq-run-'));
  const receiver = await startReceiver();
  const server: AnnotaryServer = await startAnnotary({
    engine: opts.engine,
    env: { ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  const store = await storeOf(server);
  const queueName = `annotary-bench-${process.pid}-${Date.now()}`;
  const queue = new Queue(queueName, { connection: redisConnection(REDIS_URL) });
  const durableQueueName = `${queueName}-durable`;
  const durableQueue = new Queue(durableQueueName, { connection: redisConnection(REDIS_URL) });
  let worker: ServerProcess | undefined;
  let durableWorker: ServerProcess | undefined;
  let durableSchema: BenchSchema | undefined;
  try {
    const created = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', { name: 'Hooks' });
    const projectId = created.data.project._id;
    await server.api('POST', `/project/${projectId}`, { stages: workflow(`${receiver.url}/hook`) });
    const warm = Math.min(1_000, Math.ceil(tasks / 10));
    await pushAndWait(server, store, projectId, warm, warm);

    const subjectFile = path.join(tmp, 'subject.json');
    fs.writeFileSync(subjectFile, JSON.stringify(await subjectTemplate(store, projectId)));
    const startWorker = async (queue: string, durable: Record<string, string>) => {
      const port = await freePort();
      return startServerProcess({
        label: `bullmq worker${Object.keys(durable).length ? ' (durable)' : ''}`,
        command: process.execPath,
        args: ['--import', 'tsx', 'bench/servers/bullmq-worker.ts'],
        cwd: REPO_ROOT,
        env: {
          PORT: String(port),
          BENCH_BULLMQ_ENTRY: entry,
          BENCH_QUEUE: queue,
          BENCH_REDIS_URL: REDIS_URL,
          BENCH_URL: `${receiver.url}/hook`,
          BENCH_SECRET: SECRET,
          BENCH_SUBJECT: subjectFile,
          BENCH_CONCURRENCY: String(BULLMQ_CONCURRENCY),
          ...durable,
        },
        port,
        healthPath: '/',
      });
    };
    const durableFile = path.join(tmp, 'bullmq-durable.db');
    worker = await startWorker(queueName, {});
    // The second baseline: the same queue, each job then committing its record in the engine's kind of store.
    durableSchema = opts.engine === 'postgres' ? await createBenchSchema('bullmq') : undefined;
    durableWorker = await startWorker(
      durableQueueName,
      durableSchema ? { BENCH_DURABLE_PG: durableSchema.databaseUrl } : { BENCH_DURABLE_SQLITE: durableFile },
    );
    // The tasks the durable worker moves exist before its round, as Annotary's do: its move is an update.
    const seedDurable = async (ids: string[]) => {
      const now = new Date().toISOString();
      if (durableSchema) {
        await durableSchema.query(
          `INSERT INTO moved_tasks (id, stage_id, status, updated_at) SELECT id, 'Webhook', 'InProgress', $2 FROM unnest($1::text[]) AS id`,
          [ids, now],
        );
        return;
      }
      const db = new SQLite(durableFile);
      try {
        const insert = db.prepare(
          `INSERT INTO moved_tasks (id, stage_id, status, updated_at) VALUES (?, 'Webhook', 'InProgress', ?)`,
        );
        db.transaction(() => {
          for (const id of ids) insert.run(id, now);
        })();
      } finally {
        db.close();
      }
    };
    const ours = [server.process.pid, receiver.pid, worker.pid, durableWorker.pid, process.pid];
    // The workers' warm-up: JIT and kept-alive connections, as Annotary had.
    await queueRound(queue, warm, warm, ours, worker.pid);
    await queueRound(durableQueue, warm, warm, ours, durableWorker.pid, seedDurable);

    const annotary: TaskRound[] = [];
    const bull: QueueRound[] = [];
    const durable: QueueRound[] = [];
    for (let r = 0; r < rounds; r++) {
      const total = warm + (r + 1) * tasks;
      annotary.push(await taskRound(server, store, receiver.url, projectId, tasks, total, ours));
      bull.push(await queueRound(queue, tasks, total, ours, worker.pid));
      durable.push(await queueRound(durableQueue, tasks, total, ours, durableWorker.pid, seedDurable));
      const [a, b, d] = [annotary[r], bull[r], durable[r]];
      process.stdout.write(
        `  round ${r + 1}: Annotary ${num(a?.perSec ?? 0)} tasks/s (server ${Math.round(a?.serverCpuUsPerTask ?? 0)} µs CPU per task), ` +
          `BullMQ ${num(b?.perSec ?? 0)} jobs/s (worker ${Math.round(b?.workerCpuUsPerJob ?? 0)} µs per job), ` +
          `BullMQ + ${opts.engine} ${num(d?.perSec ?? 0)} jobs/s (worker ${Math.round(d?.workerCpuUsPerJob ?? 0)} µs per job)\n`,
      );
    }
    const a = medianBy(annotary, (x) => x.perSec);
    const b = medianBy(bull, (x) => x.perSec);
    const ratio = a.perSec / b.perSec;
    const ratios = annotary.map((x, i) => x.perSec / (bull[i]?.perSec ?? Number.NaN));
    const d = medianBy(durable, (x) => x.perSec);
    const durableRatio = a.perSec / d.perSec;
    const durableRatios = annotary.map((x, i) => x.perSec / (durable[i]?.perSec ?? Number.NaN));
    const store_ = opts.engine === 'postgres' ? 'PostgreSQL' : 'SQLite';
    const whole = (n: number) => num(Math.round(n));
    const others = (list: { otherCpu: OtherCpu | undefined }[]) =>
      list.map((x) => describeOtherCpu(x.otherCpu)).join('; ');
    return {
      table: {
        columns: ['sender', 'per second', 'rounds', 'seconds'],
        rows: [
          [
            `Annotary tasks (${opts.engine})`,
            Math.round(a.perSec),
            spreadOf(
              annotary.map((x) => x.perSec),
              whole,
            ),
            a.seconds.toFixed(2),
          ],
          [
            `BullMQ ${BULLMQ_VERSION} jobs (Redis)`,
            Math.round(b.perSec),
            spreadOf(
              bull.map((x) => x.perSec),
              whole,
            ),
            b.seconds.toFixed(2),
          ],
          [
            `BullMQ ${BULLMQ_VERSION} + one ${store_} transaction per job`,
            Math.round(d.perSec),
            spreadOf(
              durable.map((x) => x.perSec),
              whole,
            ),
            d.seconds.toFixed(2),
          ],
        ],
      },
      summary:
        `Webhook stage on ${opts.engine}: ${num(a.perSec)} tasks/s = ${ratio.toFixed(2)} x a BullMQ worker ` +
        `(${num(b.perSec)} jobs/s, concurrency ${BULLMQ_CONCURRENCY}) delivering to the same receiver; ` +
        `medians of ${rounds} alternated rounds (ratios ${ratios.map((x) => x.toFixed(2)).join(', ')}); ` +
        `${durableRatio.toFixed(2)} x the same worker committing one ${store_} transaction per job ` +
        `(${num(d.perSec)} jobs/s; ratios ${durableRatios.map((x) => x.toFixed(2)).join(', ')})`,
      notes: [
        `${rounds} alternating rounds of ${num(tasks)} tasks / jobs after ${warm} warm-up of each`,
        `ratio per round: ${ratios.map((x) => x.toFixed(2)).join(', ')}; against the durable worker: ${durableRatios.map((x) => x.toFixed(2)).join(', ')}`,
        `the durable worker: after each 200, one ${store_} transaction (the task's existing row updated, a history entry, a log line; its CPU per job, µs: ${durable.map((x) => Math.round(x.workerCpuUsPerJob)).join(', ')})`,
        `CPU per task, Annotary's server process (all threads) / the BullMQ worker's per job, µs: ${annotary
          .map((x, i) => `${Math.round(x.serverCpuUsPerTask)} / ${Math.round(bull[i]?.workerCpuUsPerJob ?? 0)}`)
          .join(', ')} (PostgreSQL's and Redis's CPU are under other CPU)`,
        "each job: Annotary's buildPayload, JSON, HMAC-SHA1 signature (deliveryHeaders), undici POST; the receiver checks every signature",
        'Annotary also moves each task to Complete with its history entry and log line, durable in the store; the queue writes only to Redis',
        'other CPU (cores) in each round (Redis and PostgreSQL count as other):',
        `  Annotary: ${others(annotary)}`,
        `  BullMQ:   ${others(bull)}`,
        `  durable:  ${others(durable)}`,
      ],
      data: {
        tasks,
        warm,
        rounds,
        ratio,
        ratios,
        durableRatio,
        durableRatios,
        annotaryRounds: annotary,
        bullmqRounds: bull,
        durableRounds: durable,
        bullmq: BULLMQ_VERSION,
      },
    };
  } finally {
    // Each step on its own: one that fails leaves none of the others undone.
    const steps: (() => Promise<unknown> | undefined)[] = [
      () => worker?.stop(),
      () => durableWorker?.stop(),
      () => queue.obliterate({ force: true }),
      () => queue.close(),
      () => durableQueue.obliterate({ force: true }),
      () => durableQueue.close(),
      () => durableSchema?.drop(),
      () => store.close(),
      () => server.stop(),
      () => receiver.stop(),
    ];
    for (const step of steps) await Promise.resolve(step()).catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export default defineBenchmark({
  name: 'webhook-bullmq',
  description:
    'tasks/s through Start -> Webhook (secret) -> Complete vs a BullMQ worker (concurrency 50, same payload builder and signature, undici) delivering to the same receiver, and vs the same worker committing one transaction per job (SQLite or PostgreSQL, as the engine), alternated over rounds (--tasks, --rounds; installs bullmq outside the project)',
  run,
});
