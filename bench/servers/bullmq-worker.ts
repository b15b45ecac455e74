/**
 * The baseline of bench/webhook-bullmq.ts: what a team would build instead of a Webhook stage.
 * One BullMQ worker (concurrency 50) on Redis; each job builds the task's payload with
 * Annotary's own builder (buildPayload, from the subject a real delivery of the benchmark's
 * project had: project, stage, asset, history, with the job's task id), signs it the way
 * Annotary does (deliveryHeaders: hex HMAC-SHA1 of the bytes) and POSTs it with undici to the
 * same receiver, kept-alive connections like Annotary's sender; anything but a 200 fails the
 * job. Pinned to the server core like Annotary.
 *
 * With BENCH_DURABLE_SQLITE (a file) or BENCH_DURABLE_PG (a URL whose search_path is a schema of
 * its own), each delivered job then commits one transaction of what a team would record, as the
 * issue's second baseline ("the same queue plus one committed transaction per job"): the task
 * moved (an upsert; the benchmark writes each round's tasks first, so it updates them), a
 * history entry and a log line, one table each with its primary key. On SQLite the file is in
 * WAL with synchronous=NORMAL, as Annotary's store; on PostgreSQL a pool of 10 connections, as
 * Annotary's default, so at most 10 of the 50 jobs in flight commit at once. Run by the
 * benchmark, not by hand:
 *
 *   BENCH_QUEUE=q BENCH_REDIS_URL=redis://127.0.0.1:6379 BENCH_URL=http://127.0.0.1:3001/hook \
 *   BENCH_SECRET=s BENCH_SUBJECT=subject.json node --import tsx bench/servers/bullmq-worker.ts
 */
import fs from 'node:fs';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Agent, request } from 'undici';
import { deliveryHeaders } from '../../src/services/webhooks/webhook-delivery.js';
import { buildPayload, type DeliverySubject } from '../../src/services/webhooks/webhook-payload.js';
import { ProjectViews } from '../../src/services/webhooks/webhook-project-views.js';
import { loadBullMq, redisConnection } from '../lib/bullmq.js';

const url = process.env.BENCH_URL ?? 'http://127.0.0.1:3001/hook';
const secret = process.env.BENCH_SECRET ?? '';
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 50);
const template = JSON.parse(fs.readFileSync(process.env.BENCH_SUBJECT ?? '/dev/null', 'utf8')) as Omit<
  DeliverySubject,
  'view'
>;
const views = new ProjectViews();
const agent = new Agent({ keepAliveTimeout: 10_000, connections: Number(process.env.BENCH_CONNECTIONS ?? 64) });
const { Worker } = await loadBullMq();

const TABLES = [
  'CREATE TABLE IF NOT EXISTS moved_tasks (id TEXT PRIMARY KEY, stage_id TEXT NOT NULL, status TEXT NOT NULL, updated_at TEXT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS task_history (id TEXT PRIMARY KEY, task_id TEXT NOT NULL, stage_id TEXT NOT NULL, completed_at TEXT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS delivery_logs (id TEXT PRIMARY KEY, task_id TEXT NOT NULL, status INTEGER NOT NULL, created_at TEXT NOT NULL)',
];
const MOVE = `INSERT INTO moved_tasks (id, stage_id, status, updated_at) VALUES ($1, 'Complete', 'Completed', $2)
  ON CONFLICT (id) DO UPDATE SET stage_id = excluded.stage_id, status = excluded.status, updated_at = excluded.updated_at`;
const HISTORY = 'INSERT INTO task_history (id, task_id, stage_id, completed_at) VALUES ($1, $2, $3, $4)';
const LOG = 'INSERT INTO delivery_logs (id, task_id, status, created_at) VALUES ($1, $2, $3, $4)';

/** The durable record of a delivered job, one committed transaction each (none without the env). */
async function durableRecorder(): Promise<((taskId: string, status: number) => Promise<void>) | undefined> {
  const file = process.env.BENCH_DURABLE_SQLITE;
  if (file) {
    const db = new SQLite(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    for (const t of TABLES) db.exec(t);
    const positional = (text: string) => db.prepare(text.replace(/\$\d/g, '?'));
    const [move, history, log] = [positional(MOVE), positional(HISTORY), positional(LOG)];
    const record = db.transaction((taskId: string, status: number) => {
      const now = new Date().toISOString();
      move.run(taskId, now);
      history.run(randomUUID(), taskId, 'Webhook', now);
      log.run(randomUUID(), taskId, status, now);
    });
    return async (taskId, status) => {
      record(taskId, status);
    };
  }
  const url = process.env.BENCH_DURABLE_PG;
  if (!url) return undefined;
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  for (const t of TABLES) await pool.query(t);
  return async (taskId, status) => {
    const client = await pool.connect();
    try {
      const now = new Date().toISOString();
      await client.query('BEGIN');
      await client.query(MOVE, [taskId, now]);
      await client.query(HISTORY, [randomUUID(), taskId, 'Webhook', now]);
      await client.query(LOG, [randomUUID(), taskId, status, now]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };
}
const recordDelivery = await durableRecorder();

const worker = new Worker(
  process.env.BENCH_QUEUE ?? 'hooks',
  async (job) => {
    const { taskId } = job.data as { taskId: string };
    const subject: DeliverySubject = {
      ...template,
      task: { ...template.task, id: taskId },
      view: views.of(template.project),
    };
    // Its tasks have no brush layer: links would go out as stored.
    const body = Buffer.from(JSON.stringify(buildPayload(subject, (link) => link)));
    const headers = deliveryHeaders({ url, authType: 'secret', secret }, job.id ?? taskId, job.attemptsMade + 1, body);
    const res = await request(url, { method: 'POST', headers, body, dispatcher: agent });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`receiver answered ${res.statusCode}`);
    await recordDelivery?.(taskId, res.statusCode);
  },
  { connection: redisConnection(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'), concurrency },
);

// Ready once the worker runs: a health port for startServerProcess.
const server = http.createServer((_req, res) => res.writeHead(200).end('ok'));
server.listen(Number(process.env.PORT ?? 3003), '127.0.0.1');
process.on('SIGTERM', () => {
  void worker.close().then(() => {
    server.close();
    void agent.close();
    process.exit(0);
  });
});
