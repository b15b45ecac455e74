/**
 * Soak of the scale-out set-up, bounded in time:
 *
 *   npx tsx bench/soak.ts [--minutes 5] [--skip-build]
 *
 * Two API processes (ANNOTARY_RUN_WORKER=false) and two worker processes of the built server
 * (`node dist/cli/index.js`) on one fresh PostgreSQL schema and the local Redis. A load generator
 * imports assets, lists tasks and annotates them, round-robin over the two APIs; annotated
 * tasks go Label -> Logic (random half) -> one of two Webhook stages -> Complete, delivering
 * to a receiver on 127.0.0.1 that fails 10 % of requests at random. Half-way, one worker is
 * killed (SIGKILL) and started again. After the load, the fleet gets up to 2 minutes to drain,
 * then the rate limits are checked across the replicas. It prints the figures docs/benchmarks.md
 * records.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { REPO_ROOT } from './lib/annotary.js';
import { describeMachine, machineLine } from './lib/machine.js';
import { createBenchSchema } from './lib/postgres.js';
import { freePort } from './lib/server-process.js';
import { fleetProcess, startSoakReceiver } from './lib/soak-fleet.js';
import { percentiles } from './lib/stats.js';

const run = promisify(execFile);
const minutesArg = process.argv.indexOf('--minutes');
const MINUTES = minutesArg > 0 ? Number(process.argv[minutesArg + 1]) : 5;
if (!(MINUTES > 0)) throw new Error('--minutes takes a positive number');
const KEY = 'ak_soak_0123456789abcdefghijklmnop';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const USERS = 4;
const IMPORT_SIZE = 5;
const STANDARD_LIMIT = 100;

const WORKFLOW = (hook: string) => {
  const webhook = { url: hook, authType: 'secret', secret: 'soak-secret', retryCount: 10, timeout: 5000 };
  return [
    { id: 'Start', type: 'Start', next: ['Label'] },
    { id: 'Label', type: 'Label', next: ['Route'] },
    {
      id: 'Route',
      type: 'Logic',
      next: ['HookA', 'HookB'],
      logic: { conditions: [{ type: 'RandomSample', index: 0, value: { sampleRate: 0.5 } }] },
    },
    { id: 'HookA', type: 'Webhook', next: ['Complete'], webhook },
    { id: 'HookB', type: 'Webhook', next: ['Complete'], webhook },
    { id: 'Complete', type: 'Complete' },
  ];
};

interface Tally {
  served: number;
  unintended: number;
  intended: number;
  networkErrors: number;
  latencies: number[];
}
const tally: Tally = { served: 0, unintended: 0, intended: 0, networkErrors: 0, latencies: [] };

async function cli(env: Record<string, string>, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, ['dist/cli/index.js', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** One API call, timed and counted; answers the status and the parsed body. */
async function call(base: string, key: string, method: string, url: string, body?: unknown, intended: number[] = []) {
  const started = performance.now();
  try {
    const res = await fetch(`${base}/v2${url}`, {
      method,
      signal: AbortSignal.timeout(30_000),
      headers: { apikey: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    tally.latencies.push(performance.now() - started);
    tally.served++;
    if (intended.includes(res.status)) tally.intended++;
    else if (res.status >= 300) tally.unintended++;
    return { status: res.status, body: text ? (JSON.parse(text) as { data?: Record<string, unknown> }) : {} };
  } catch {
    tally.networkErrors++;
    return { status: 0, body: {} };
  }
}

const t0 = Date.now();
const say = (line: string) => process.stdout.write(`[${((Date.now() - t0) / 1000).toFixed(0)} s] ${line}\n`);
const mib = (b: number | undefined) =>
  b === undefined || Number.isNaN(b) ? 'n/a' : `${(b / 1024 ** 2).toFixed(0)} MiB`;

async function main(): Promise<void> {
  const machine = describeMachine();
  const loadBefore = os.loadavg();
  const commit = (await run('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT })).stdout.trim();
  process.stdout.write(`soak: ${MINUTES} min, commit ${commit}\n${machineLine(machine)}\n`);
  process.stdout.write(`load average before: ${loadBefore.map((l) => l.toFixed(2)).join(' ')}\n`);
  // --skip-build: dist/ is already the commit's (a build takes minutes on a busy machine).
  if (!process.argv.includes('--skip-build')) {
    await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT });
  }

  const schema = await createBenchSchema('soak');
  const receiver = await startSoakReceiver(0.1);
  const env = {
    DATABASE_URL: schema.databaseUrl,
    REDIS_URL,
    ANNOTARY_SECRET_KEY: '5a'.repeat(32),
    ANNOTARY_BOOTSTRAP_API_KEY: KEY,
    ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true',
    ANNOTARY_JOB_RETRY_BASE_MS: '200',
    ANNOTARY_RUN_WORKER: 'false',
    ANNOTARY_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-soak-')),
    LOG_LEVEL: 'warn',
  };
  const api1 = fleetProcess('api-1', 'serve', env, await freePort());
  const api2 = fleetProcess('api-2', 'serve', env, await freePort());
  const w1 = fleetProcess('worker-1', 'worker', env);
  const w2 = fleetProcess('worker-2', 'worker', env);
  const fleet = [api1, api2, w1, w2];
  try {
    await api1.start(); // migrates and bootstraps first
    await Promise.all([api2.start(), w1.start(), w2.start()]);
    say('fleet up: 2 API processes, 2 workers');
    const apis = [api1.url ?? '', api2.url ?? ''];
    const orgs = (await cli(env, ['orgs', 'list'])) as unknown as { id: string }[];
    await cli(env, ['orgs', 'plan', orgs[0]?.id ?? '', 'enterprise', '--limit', '1000000']);
    const standardOrg = (await cli(env, ['orgs', 'create', '--name', 'Standard', '--plan', 'standard'])) as {
      id: string;
    };
    const standard = await cli(env, ['users', 'create', '--email', 'std@soak.local', '--org', standardOrg.id, '--key']);
    const standardKey = String(standard.apiKey);

    const created = await call(apis[0] ?? '', KEY, 'POST', '/project', { name: 'Soak' });
    const projectId = String((created.body.data?.project as { _id: string })._id);
    const set = await call(apis[0] ?? '', KEY, 'POST', `/project/${projectId}`, { stages: WORKFLOW(receiver.url) });
    if (set.status !== 200) throw new Error(`workflow refused: ${JSON.stringify(set.body)}`);

    const imported: string[] = [];
    const annotated = new Set<string>();
    const waiting: string[] = [];
    let n = 0;
    const end = Date.now() + MINUTES * 60_000;
    const user = async (u: number) => {
      let turn = u;
      const base = () => apis[turn++ % 2] ?? '';
      while (Date.now() < end) {
        const assets = Array.from({ length: IMPORT_SIZE }, () => {
          const i = n++;
          return { data: `https://cdn.example.com/soak/${i}.jpg`, externalId: `soak-${i}` };
        });
        const res = await call(base(), KEY, 'POST', `/project/${projectId}/cloud`, { assets });
        const ids = ((res.body.data?.assets ?? []) as { taskId: string }[]).map((a) => a.taskId);
        imported.push(...ids);
        waiting.push(...ids);
        await call(base(), KEY, 'GET', `/project/${projectId}/tasks?limit=50&stage=Label`);
        for (let k = 0; k < IMPORT_SIZE && waiting.length > 0; k++) {
          const taskId = waiting.shift() ?? '';
          const answer = { tools: [], classifications: [], relations: [] };
          const done = await call(base(), KEY, 'POST', `/annotate/${taskId}?nextStage=true`, {
            answer,
            duration: 1000,
          });
          if (done.status === 200) annotated.add(taskId);
        }
      }
    };
    const chaos = (async () => {
      await sleep((MINUTES * 60_000) / 2);
      say('killing worker-1 (SIGKILL) and starting it again');
      await w1.kill();
      await sleep(5_000);
      await w1.start();
      say('worker-1 running again');
    })();
    await Promise.all([...Array.from({ length: USERS }, (_, u) => user(u)), chaos]);
    const loadEnd = os.loadavg();
    say(`load over: ${tally.served} requests; draining`);

    // Drain: every annotated task should reach Complete.
    const drainDeadline = Date.now() + 120_000;
    let stuck: string[] = [];
    for (;;) {
      const rows = await schema.query<{ id: string; stage_id: string }>(
        `SELECT id, stage_id FROM tasks WHERE project_id = $1 AND stage_id <> 'Label'`,
        [projectId],
      );
      const complete = new Set(rows.filter((r) => r.stage_id === 'Complete').map((r) => r.id));
      stuck = [...annotated].filter((id) => !complete.has(id));
      if (stuck.length === 0 || Date.now() > drainDeadline) break;
      await sleep(1_000);
    }
    const present = await schema.query<{ id: string }>(`SELECT id FROM tasks WHERE project_id = $1`, [projectId]);
    const presentIds = new Set(present.map((r) => r.id));
    const lost = imported.filter((id) => !presentIds.has(id));

    say(`drained (${stuck.length} not complete); checking rate limits at the next window start`);
    // Rate limits across the replicas, at the start of a window with room to spare.
    const into = Date.now() % 60_000;
    if (into > 20_000) await sleep(60_000 - into + 200);
    const statuses: number[] = [];
    for (let i = 0; i < STANDARD_LIMIT + 30; i++) {
      statuses.push((await call(apis[i % 2] ?? '', standardKey, 'GET', '/listProjects', undefined, [429])).status);
    }
    const badKey: number[] = [];
    for (let i = 0; i < 25; i++) {
      badKey.push(
        (await call(apis[i % 2] ?? '', `ak_soak_guess_${i}`, 'GET', '/listProjects', undefined, [401, 429])).status,
      );
    }
    for (const p of fleet) await p.stop();

    const deliveries = [...annotated].map((id) => receiver.byTask.get(id) ?? { requests: 0, ok: 0 });
    const okCounts = deliveries.map((d) => d.ok);
    const p = percentiles(tally.latencies, [50, 99]);
    const out = [
      `requests served: ${tally.served} (${(tally.served / (MINUTES * 60)).toFixed(0)}/s), network errors: ${tally.networkErrors}`,
      `error rate (non-2xx other than the intended 429/401): ${((100 * tally.unintended) / Math.max(1, tally.served)).toFixed(3)} % (${tally.unintended})`,
      `latency p50 ${p.p50?.toFixed(1)} ms, p99 ${p.p99?.toFixed(1)} ms`,
      `tasks: ${imported.length} imported, ${annotated.size} annotated, lost ${lost.length}, stuck ${stuck.length}`,
      `webhook requests: ${receiver.requests()} (${receiver.failed()} failed on purpose)`,
      `deliveries (200) per annotated task: min ${Math.min(...okCounts)}, max ${Math.max(...okCounts)}, ` +
        `tasks with none ${okCounts.filter((c) => c === 0).length}, with duplicates ${okCounts.filter((c) => c > 1).length} ` +
        `(${okCounts.reduce((a, c) => a + Math.max(0, c - 1), 0)} extra)`,
      `rate limit, standard plan over two replicas: ${statuses.filter((s) => s === 200).length} x 200, ` +
        `${statuses.filter((s) => s === 429).length} x 429 of ${statuses.length} (plan: ${STANDARD_LIMIT} then 429)`,
      `invalid keys over two replicas: ${badKey.filter((s) => s === 401).length} x 401, ${badKey.filter((s) => s === 429).length} x 429 of 25 (plan: 20 then 429)`,
      ...fleet.flatMap((f) =>
        f.lives.map(
          (l, i) =>
            `RSS ${f.name}${f.lives.length > 1 ? ` (life ${i + 1}${l.killed ? ', killed' : ''})` : ''}: start ${mib(l.rssStartBytes)}, end ${mib(l.rssEndBytes)}`,
        ),
      ),
      `load average at the end of the load: ${loadEnd.map((l) => l.toFixed(2)).join(' ')}`,
    ];
    process.stdout.write(out.join('\n') + '\n');
  } catch (err) {
    for (const f of fleet) process.stderr.write(`--- ${f.name}\n${f.output()}\n`);
    throw err;
  } finally {
    for (const f of fleet) await f.stop().catch(() => undefined);
    await receiver.close();
    await schema.drop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`soak failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
