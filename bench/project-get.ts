/**
 * GET /v2/project/{id}: requests per second of a real Annotary server process reading one
 * project with a realistic ontology and a five-stage workflow, next to a bare Fastify 5 process
 * answering the very same JSON document on the same route shape. The ratio says how much of a
 * bare server's throughput survives Annotary's work per request (key lookup, rate limit,
 * project, member and batch queries, JSON parse and serialize).
 *
 * Both servers run at once on the server core, each idle while the other is measured; with
 * `--rounds N` (default 3) they are measured alternately N times and the median round is kept,
 * which tames a machine that other work makes noisy.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AnnotaryServer, REPO_ROOT, startAnnotary } from './lib/annotary.js';
import { fiveStageWorkflow, streetSceneOntology } from './lib/fixtures.js';
import { describeOtherCpu } from './lib/interference.js';
import { mib, ms, num, wholeMs } from './lib/format.js';
import { type LoadFigures, runLoad } from './lib/load.js';
import { tableReads } from './lib/postgres.js';
import { cpuProfFlags, profileDir, profileReport, type ProfileSummary } from './lib/profile.js';
import { RESULTS_DIR } from './lib/results.js';
import { medianBy, roundsOption, spreadOf } from './lib/rounds.js';
import { freePort, type ServerProcess, startServerProcess } from './lib/server-process.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

interface Envelope<T> {
  data: T;
}

interface Measured {
  /** The median round by req/s. */
  load: LoadFigures;
  /** req/s of every round, in order. */
  rounds: number[];
  /** Median over the rounds of the server's CPU time per request, µs. */
  cpuUs: number | undefined;
  peakRssBytes: number;
}

/** The project the benchmark reads: ontology, workflow and two batches, set through the API. */
async function createProject(server: AnnotaryServer): Promise<string> {
  const created = await server.api<Envelope<{ project: { _id: string } }>>('POST', '/project', {
    name: 'Street scenes',
    description: 'Benchmark project: street scenes, ten tools, five questions',
  });
  const id = created.data.project._id;
  await server.api('POST', `/project/${id}`, { categorySchema: streetSceneOntology() });
  await server.api('POST', `/project/${id}`, { stages: fiveStageWorkflow() });
  await server.api('POST', `/project/${id}`, { batches: [{ name: 'January' }, { name: 'February' }] });
  return id;
}

async function startBare(document: string, dir: string, profile: string | undefined): Promise<ServerProcess> {
  const file = path.join(dir, 'document.json');
  fs.writeFileSync(file, document);
  const port = await freePort();
  return startServerProcess({
    label: 'bare fastify',
    command: process.execPath,
    args: [...(profile ? cpuProfFlags(profile) : []), '--import', 'tsx', 'bench/servers/bare-fastify.ts'],
    cwd: REPO_ROOT,
    env: { PORT: String(port), BENCH_DOCUMENT: file },
    port,
    healthPath: '/healthz',
  });
}

const median = (runs: LoadFigures[]): LoadFigures => medianBy(runs, (l) => l.reqPerSec);

/** The median over the rounds of the server's CPU per request. */
function medianCpu(runs: LoadFigures[]): number | undefined {
  const list = runs.map((l) => l.cpuUsPerRequest).filter((x): x is number => x !== undefined);
  return list.length ? medianBy(list, (x) => x) : undefined;
}

function cpuPerRequest(m: Measured): string {
  return m.cpuUs === undefined ? '?' : `${Math.round(m.cpuUs)} µs`;
}

/** Annotary's req/s over the baseline's, round by round. */
function ratiosOf(runs: { annotary: LoadFigures[]; bare: LoadFigures[] }): string[] {
  return runs.annotary.map((l, i) => (l.reqPerSec / (runs.bare[i]?.reqPerSec ?? Number.NaN)).toFixed(2));
}

/** Table reads per request over the server's whole life (PostgreSQL counts them per table). */
async function readsPerRequest(server: AnnotaryServer, served: number): Promise<Record<string, number> | undefined> {
  if (!server.schema) return undefined;
  // Backends publish their counters when their connection closes: the server has stopped.
  await sleep(500);
  const reads = await tableReads(server.schema);
  return Object.fromEntries(
    reads
      .filter((t) => t.seqScans + t.indexScans > served / 100)
      .map((t) => [t.table, Math.round(((t.seqScans + t.indexScans) / served) * 100) / 100]),
  );
}

function row(label: string, m: Measured, bytes: number): (string | number)[] {
  const l = m.load.latency;
  const spread = spreadOf(m.rounds, num);
  return [
    label,
    Math.round(m.load.reqPerSec),
    spread,
    cpuPerRequest(m),
    wholeMs(l.p50),
    wholeMs(l.p90),
    wholeMs(l.p99),
    ms(l.mean),
    num(bytes),
    mib(m.peakRssBytes),
  ];
}

async function run(opts: BenchOptions): Promise<Result> {
  const rounds = roundsOption(opts.extra);
  const profiles = opts.profile
    ? {
        annotary: profileDir(RESULTS_DIR, `project-get-${opts.engine}-annotary`),
        bare: profileDir(RESULTS_DIR, `project-get-${opts.engine}-bare`),
      }
    : undefined;

  const server = await startAnnotary({
    engine: opts.engine,
    nodeFlags: profiles ? cpuProfFlags(profiles.annotary) : [],
  });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-bench-bare-'));
  let bare: ServerProcess | undefined;
  try {
    const id = await createProject(server);
    const res = await fetch(`${server.url}/v2/project/${id}`, { headers: { apikey: server.apiKey } });
    const document = await res.text();
    if (!res.ok) throw new Error(`GET /v2/project/${id} answered ${res.status}: ${document.slice(0, 300)}`);
    bare = await startBare(document, tmp, profiles?.bare);

    const runs = { annotary: [] as LoadFigures[], bare: [] as LoadFigures[] };
    const load = { connections: 10, pipelining: 1, durationSec: opts.durationSec, warmupSec: opts.warmupSec };
    for (let r = 0; r < rounds; r++) {
      runs.annotary.push(
        await runLoad({
          ...load,
          url: `${server.url}/v2/project/${id}`,
          headers: { apikey: server.apiKey },
          pids: [server.process.pid],
        }),
      );
      runs.bare.push(await runLoad({ ...load, url: `${bare.url}/v2/project/${id}`, pids: [bare.pid] }));
    }
    const bareStopped = await bare.stop();
    const annotaryStopped = await server.process.stop();
    const served = 1 + runs.annotary.reduce((n, l) => n + l.requests + l.warmupRequests, 0);
    const reads = await readsPerRequest(server, served);

    const a: Measured = {
      load: median(runs.annotary),
      rounds: runs.annotary.map((l) => Math.round(l.reqPerSec)),
      cpuUs: medianCpu(runs.annotary),
      peakRssBytes: annotaryStopped.peakRssBytes,
    };
    const b: Measured = {
      load: median(runs.bare),
      rounds: runs.bare.map((l) => Math.round(l.reqPerSec)),
      cpuUs: medianCpu(runs.bare),
      peakRssBytes: bareStopped.peakRssBytes,
    };
    const bytes = Buffer.byteLength(document);
    const ratio = a.load.reqPerSec / b.load.reqPerSec;

    const notes: string[] = [];
    if (rounds > 1) notes.push(`${rounds} alternating rounds; the table shows each server's median round`);
    notes.push(`ratio per round: ${ratiosOf(runs).join(', ')}`);
    if (a.cpuUs !== undefined && b.cpuUs !== undefined) {
      notes.push(
        `CPU ratio (bare CPU per request / Annotary's, medians of the rounds): ${(b.cpuUs / a.cpuUs).toFixed(2)} ` +
          `(${Math.round(a.cpuUs)} µs against ${Math.round(b.cpuUs)} µs): what the ratio would be with the server core to itself`,
      );
    }
    const others = (list: LoadFigures[]) => list.map((l) => describeOtherCpu(l.otherCpu)).join('; ');
    notes.push(`CPU used by other processes in each round, in cores (PostgreSQL counts as other):`);
    notes.push(`  Annotary: ${others(runs.annotary)}`, `  bare:     ${others(runs.bare)}`);
    if (reads) {
      const list = Object.entries(reads).map(([t, n]) => `${t} ${n}`);
      notes.push(`PostgreSQL ${server.schema?.serverVersion}: table reads per request: ${list.join(', ')}`);
    }
    const profileSummaries: Record<string, ProfileSummary | undefined> = {};
    if (profiles) {
      notes.push('profiled run (--cpu-prof): the figures above are lower than an unprofiled run');
      const reports = [
        { label: 'annotary', dir: profiles.annotary, windows: runs.annotary.map((l) => l.window) },
        { label: 'bare', dir: profiles.bare, windows: runs.bare.map((l) => l.window) },
      ];
      for (const { label, dir, windows } of reports) {
        const report = profileReport(label, dir, REPO_ROOT, 12, windows);
        notes.push(...report.lines);
        profileSummaries[label] = report.summary;
      }
    }
    return {
      table: {
        columns: ['server', 'req/s', 'rounds', 'CPU/req', 'p50', 'p90', 'p99', 'mean', 'body bytes', 'peak RSS'],
        rows: [row(`Annotary (${opts.engine})`, a, bytes), row('bare Fastify', b, bytes)],
      },
      summary:
        `Annotary GET /v2/project/{id} on ${opts.engine}: ${num(a.load.reqPerSec)} req/s, ` +
        `p99 ${wholeMs(a.load.latency.p99)} = ${ratio.toFixed(2)} x bare Fastify ` +
        `(${num(b.load.reqPerSec)} req/s, same ${num(bytes)}-byte document)`,
      notes,
      data: {
        ratio,
        documentBytes: bytes,
        rounds,
        annotary: a,
        bare: b,
        allRounds: runs,
        postgresVersion: server.schema?.serverVersion ?? null,
        tableReadsPerRequest: reads ?? null,
        profiles: profiles ? profileSummaries : null,
      },
    };
  } finally {
    await bare?.stop();
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export default defineBenchmark({
  name: 'project-get',
  description:
    'GET /v2/project/{id} (10 tools, 5 classifications, 5 stages) on an Annotary process vs a bare Fastify process serving the same document; autocannon, 10 connections, pipelining 1 (--rounds N alternates N times, default 3)',
  run,
});
