/**
 * CPU time per delivered task of Annotary's own process, in process: tasks imported into
 * Start -> Webhook (secret) -> Complete with the job worker stopped, then the server's worker
 * (startWorker, as `annotary serve` runs it) started and timed until every task is Complete,
 * delivering to bench/servers/webhook-receiver.ts in a child process on the other core. CPU is
 * process.cpuUsage (every thread of this process: the SQLite checkpoint thread included; not
 * PostgreSQL's backends). It needs no quiet machine and no benchmark lock: another process slows
 * the run down but adds little to the CPU each task takes. Used to compare two trees of the code
 * (run this file from each, alternately):
 *
 *   npx tsx bench/scripts/webhook-cpu.ts [sqlite|postgres] [tasks per round, 2000] [rounds, 5]
 *
 * Prints one JSON line: µs of CPU per task and tasks/s (wall, in process), each round and the median;
 * on PostgreSQL also the CPU of the server's backends (its connections, found by application_name
 * in pg_stat_activity; a backend that closed during a round is missed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { buildApp } from '../../src/http/app.js';
import { startWorker } from '../../src/server.js';
import { bootstrap } from '../../src/services/identity/identity.service.js';
import { openStore } from '../../src/store/db.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { cpuSecondsOf } from '../lib/interference.js';
import { startReceiver, workflow } from '../webhook-throughput.js';

const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const perRound = Number(process.argv[3] ?? 2000);
const rounds = Number(process.argv[4] ?? 5);
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-webhook-cpu-'));
const pgSchema = engine === 'postgres' ? `wcpu_${randomBytes(5).toString('hex')}` : undefined;
const appName = `webhook_cpu_${process.pid}`;
const store = pgSchema
  ? await openStore({ databaseUrl: `${PG_URL}?application_name=${appName}`, pgSchema })
  : await openStore({ sqliteFile: path.join(dataDir, 'annotary.db'), checkpointThread: true });
await migrateToLatest(store);
const config = loadConfig({
  ANNOTARY_DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  ANNOTARY_RUN_WORKER: 'false',
  ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true',
});
const ctx = await createContext(config, { store, migrated: true });
const boot = await bootstrap(store.db, ctx.clock, { plan: config.defaultPlan });
if (!boot?.apiKey) throw new Error('bootstrap made no key');
await store.db.updateTable('organizations').set({ plan: 'enterprise', rate_limit: 1_000_000_000 }).execute();
const app = await buildApp(ctx);
await app.ready();
const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
  const res = await app.inject({
    method,
    url,
    headers: { apikey: boot.apiKey as string, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  return res.json() as { data: Record<string, unknown> };
};

const receiver = await startReceiver();

const created = await call('POST', '/v2/project', { name: 'Hooks' });
const projectId = (created.data.project as { _id: string })._id;
await call('POST', `/v2/project/${projectId}`, { stages: workflow(`${receiver.url}/hook`) });

async function completeCount(): Promise<number> {
  const row = await store.db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', projectId)
    .where('stage_id', '=', 'Complete')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** CPU seconds of each of the server's PostgreSQL backends (none on SQLite). */
async function backendCpu(): Promise<Map<number, number>> {
  if (!pgSchema) return new Map();
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
    appName,
  ]);
  await client.end();
  return new Map(rows.map((r) => [r.pid, cpuSecondsOf([r.pid])]));
}

let total = 0;
async function round(n: number): Promise<{ cpuUs: number; perSec: number; pgUs: number }> {
  for (let done = 0; done < n; done += 5_000) {
    const k = Math.min(5_000, n - done);
    const assets = Array.from({ length: k }, (_, i) => ({ data: `https://cdn.example.com/${total}-${done + i}.jpg` }));
    await call('POST', `/v2/project/${projectId}/cloud`, { assets });
  }
  total += n;
  const pg0 = await backendCpu();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const worker = startWorker(ctx);
  const deadline = Date.now() + 5 * 60_000;
  while ((await completeCount()) < total) {
    if (Date.now() > deadline) throw new Error('tasks did not all reach Complete within 5 minutes');
    await sleep(20);
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  let pgSeconds = 0;
  for (const [pid, s] of await backendCpu()) pgSeconds += s - (pg0.get(pid) ?? 0);
  await worker.stop();
  return { cpuUs: (cpu.user + cpu.system) / n, perSec: n / seconds, pgUs: (pgSeconds * 1e6) / n };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? Number.NaN;
try {
  await round(Math.min(500, perRound)); // warm-up: JIT, statements, connections
  const cpu: number[] = [];
  const rate: number[] = [];
  const pgCpu: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const x = await round(perRound);
    cpu.push(Math.round(x.cpuUs));
    rate.push(Math.round(x.perSec));
    pgCpu.push(Math.round(x.pgUs));
  }
  process.stdout.write(
    `${JSON.stringify({ engine, perRound, cpuUsPerTask: cpu, medianCpuUs: median(cpu), tasksPerSec: rate, medianPerSec: median(rate), ...(pgSchema ? { pgBackendUsPerTask: pgCpu, medianPgUs: median(pgCpu) } : {}), load: fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0] })}\n`,
  );
} finally {
  await app.close();
  await ctx.close();
  await store.close();
  await receiver.stop();
  if (pgSchema) {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
    await client.end();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
