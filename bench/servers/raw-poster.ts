/**
 * The baseline of the webhook benchmark: plain HTTP POSTs with undici (kept-alive connections,
 * like Annotary's sender) of a fixed JSON body to the receiver, from `BENCH_CONCURRENCY` loops
 * for `BENCH_SECONDS`, after a one-second warm-up. Prints one JSON line: {requests, seconds}.
 * With `BENCH_HEADERS` (a JSON object, e.g. the headers Annotary sent with that body, its
 * signature included) every request carries them, so the receiver does the same work for it.
 *
 *   BENCH_URL=http://127.0.0.1:3001/hook BENCH_BODY=body.json node --import tsx bench/servers/raw-poster.ts
 */
import fs from 'node:fs';
import { Agent, request } from 'undici';

const url = process.env.BENCH_URL ?? 'http://127.0.0.1:3001/hook';
const body = fs.readFileSync(process.env.BENCH_BODY ?? '/dev/null');
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const agent = new Agent({ keepAliveTimeout: 10_000, connections: concurrency });
const headers: Record<string, string> = process.env.BENCH_HEADERS
  ? (JSON.parse(fs.readFileSync(process.env.BENCH_HEADERS, 'utf8')) as Record<string, string>)
  : { 'content-type': 'application/json' };

async function post(): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    headers,
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
process.stdout.write(`${JSON.stringify(result)}\n`);
await agent.close();
