/**
 * The baseline of bench/webhook-bullmq.ts: what a team would build instead of a Webhook stage.
 * One BullMQ worker (concurrency 50) on Redis; each job builds the task's payload with
 * Annotary's own builder (buildPayload, from the subject a real delivery of the benchmark's
 * project had: project, stage, asset, history, with the job's task id), signs it the way
 * Annotary does (deliveryHeaders: hex HMAC-SHA1 of the bytes) and POSTs it with undici to the
 * same receiver, kept-alive connections like Annotary's sender; anything but a 200 fails the
 * job. Pinned to the server core like Annotary. Run by the benchmark, not by hand:
 *
 *   BENCH_QUEUE=q BENCH_REDIS_URL=redis://127.0.0.1:6379 BENCH_URL=http://127.0.0.1:3001/hook \
 *   BENCH_SECRET=s BENCH_SUBJECT=subject.json node --import tsx bench/servers/bullmq-worker.ts
 */
import fs from 'node:fs';
import http from 'node:http';
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

const worker = new Worker(
  process.env.BENCH_QUEUE ?? 'hooks',
  async (job) => {
    const { taskId } = job.data as { taskId: string };
    const subject: DeliverySubject = {
      ...template,
      task: { ...template.task, id: taskId },
      view: views.of(template.project),
    };
    const body = Buffer.from(JSON.stringify(buildPayload(subject)));
    const headers = deliveryHeaders({ url, authType: 'secret', secret }, job.id ?? taskId, job.attemptsMade + 1, body);
    const res = await request(url, { method: 'POST', headers, body, dispatcher: agent });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`receiver answered ${res.statusCode}`);
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
