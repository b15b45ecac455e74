/**
 * The baseline of the webhook benchmark: plain HTTP POSTs with undici (kept-alive connections,
 * like Annotary's sender) to the receiver, from `BENCH_CONCURRENCY` loops for `BENCH_SECONDS`,
 * after a one-second warm-up. Prints one JSON line: {requests, seconds, cpuSeconds}.
 *
 * Each request does the per-delivery work of a sender, as Annotary's does: its own body (the
 * sample delivery `BENCH_BODY` with this request's task id and delivery id, serialised again),
 * and, with `BENCH_SECRET`, its own X-Hub-Signature (hex HMAC-SHA1 of the bytes sent), so the
 * receiver checks a fresh signature each time. `BENCH_HEADERS` (a JSON object: the headers
 * Annotary sent with the sample) gives the other headers.
 *
 *   BENCH_URL=http://127.0.0.1:3001/hook BENCH_BODY=body.json BENCH_SECRET=s node --import tsx bench/servers/raw-poster.ts
 */
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { Agent, request } from 'undici';

const url = process.env.BENCH_URL ?? 'http://127.0.0.1:3001/hook';
const sample = JSON.parse(fs.readFileSync(process.env.BENCH_BODY ?? '/dev/null', 'utf8')) as {
  task?: { taskId?: string };
};
const secret = process.env.BENCH_SECRET ?? '';
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const agent = new Agent({ keepAliveTimeout: 10_000, connections: concurrency });
const headers: Record<string, string> = process.env.BENCH_HEADERS
  ? (JSON.parse(fs.readFileSync(process.env.BENCH_HEADERS, 'utf8')) as Record<string, string>)
  : { 'content-type': 'application/json' };

const prefix = randomBytes(8).toString('hex');
let sent = 0;

/** This request's body and headers: a new task id and delivery id, signed when there is a secret. */
function delivery(): { body: Buffer; headers: Record<string, string> } {
  sent += 1;
  const id = `${prefix}${sent.toString(16).padStart(8, '0')}`;
  if (sample.task) sample.task.taskId = id;
  const body = Buffer.from(JSON.stringify(sample));
  const own: Record<string, string> = { ...headers, 'x-annotary-delivery': id };
  if (secret) own['x-hub-signature'] = createHmac('sha1', secret).update(body).digest('hex');
  return { body, headers: own };
}

async function post(): Promise<void> {
  const { body, headers: own } = delivery();
  const res = await request(url, {
    method: 'POST',
    headers: own,
    body,
    dispatcher: agent,
  });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`receiver answered ${res.statusCode}`);
}

async function loop(until: number, counter: { n: number }): Promise<void> {
  while (performance.now() < until) {
    await post();
    counter.n += 1;
  }
}

async function run(durationMs: number): Promise<{ requests: number; seconds: number }> {
  const counter = { n: 0 };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, () => loop(start + durationMs, counter)));
  return { requests: counter.n, seconds: (performance.now() - start) / 1000 };
}

await run(1_000);
const result = await run(seconds * 1000);
// The poster's own CPU over its whole life: the runner counts it as its own, not as "other".
const cpu = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ ...result, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`);
await agent.close();
