/**
 * GET /v2/task/{id}: requests per second of a real Annotary server process reading one labelled
 * task (20 boxes, 8 of them with a nested occlusion answer, and all 5 classifications of the
 * street-scene ontology) in a project of 100,000 labelled tasks, next to a bare Fastify 5
 * process answering the very same JSON document (bench/servers/bare-fastify.ts). The ratio says
 * how much of a bare server's throughput survives Annotary's work per request (key lookup, rate
 * limit, task, project, member, asset and batch queries, JSON parse of the answer, serialize).
 *
 * The task is made as a user would: imported through POST /project/{id}/cloud and labelled
 * through POST /annotate/{id}?nextStage=true (it then waits in Review). The other tasks are
 * seeded straight into the store (bench/lib/labelled-project.ts) so the tables have a realistic
 * size. As in project-get, both servers run at once on the server core and are measured
 * alternately `--rounds N` times (default 3); the median round is kept. Annotary logs at `warn`
 * unless `--log-level` says otherwise (`info`, the server's default, writes a line per request
 * into a pipe the runner reads, as a log shipper would).
 *
 *   npm run bench -- task-get [--engine sqlite|postgres|both] [--tasks 100000] [--rounds 3] [--log-level info]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AnnotaryServer, REPO_ROOT, startAnnotary } from './lib/annotary.js';
import { mib, ms, num, wholeMs } from './lib/format.js';
import { describeOtherCpu } from './lib/interference.js';
import { labelledProject, taskCounts } from './lib/labelled-project.js';
import { type LoadFigures, runLoad } from './lib/load.js';
import { cpuProfFlags, profileDir, profileReport, type ProfileSummary } from './lib/profile.js';
import { RESULTS_DIR } from './lib/results.js';
import { medianBy, roundsOption, spreadOf } from './lib/rounds.js';
import { freePort, type ServerProcess, startServerProcess } from './lib/server-process.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const BOXES = [
  ['car', 'bounding-box', 8],
  ['truck', 'bounding-box', 3],
  ['pedestrian', 'bounding-box', 5],
  ['cyclist', 'bounding-box', 2],
  ['bus', 'rotated-bounding-box', 2],
] as const;

/** 20 boxes and the 5 classifications of the street-scene ontology (bench/lib/fixtures.ts). */
export function realisticAnswer() {
  let n = 0;
  const tools = BOXES.flatMap(([schemaId, kind, count]) =>
    Array.from({ length: count }, () => {
      n += 1;
      const geometry = { x: 37 * n, y: 23 * n, width: 40 + 3 * n, height: 30 + 2 * n };
      return {
        schemaId,
        [kind]: kind === 'rotated-bounding-box' ? { ...geometry, rotation: 12.5 } : geometry,
        ...(schemaId === 'car' || schemaId === 'truck'
          ? { classifications: [{ schemaId: `${schemaId}-occluded`, answer: `${schemaId}-occ-${n % 3}` }] }
          : {}),
      };
    }),
  );
  return {
    tools,
    classifications: [
      { schemaId: 'weather', answer: 'weather-1' },
      { schemaId: 'time-of-day', answer: 'tod-1' },
      { schemaId: 'scene', answer: ['scene-1', 'scene-2'] },
      { schemaId: 'quality', answer: 'quality-0' },
      { schemaId: 'notes', answer: 'two cyclists partly behind the bus; glare on the left' },
    ],
    relations: [],
  };
}

/** One asset imported into the project and labelled through the API; answers its task id. */
async function labelledTask(server: AnnotaryServer, projectId: string): Promise<string> {
  const imported = await server.api<{ data: { assets: { taskId: string }[] } }>('POST', `/project/${projectId}/cloud`, {
    assets: [
      {
        externalId: 'task-get-street-0001.jpg',
        data: 'https://cdn.example.com/bench/task-get/street-0001.jpg',
        metadata: { width: 1920, height: 1080 },
        batches: ['January'],
      },
    ],
  });
  const taskId = imported.data.assets[0]?.taskId;
  if (!taskId) throw new Error('POST /cloud answered no task id');
  await server.api('POST', `/annotate/${taskId}?nextStage=true`, { answer: realisticAnswer(), duration: 95_000 });
  return taskId;
}

interface Measured {
  load: LoadFigures;
  rounds: number[];
  /** Median over the rounds of the server's CPU time per request, µs. */
  cpuUs: number | undefined;
  peakRssBytes: number;
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

function row(label: string, m: Measured, bytes: number): (string | number)[] {
  const l = m.load.latency;
  const spread = spreadOf(m.rounds, num);
  const cells = [wholeMs(l.p50), wholeMs(l.p90), wholeMs(l.p99), ms(l.mean), num(bytes), mib(m.peakRssBytes)];
  return [label, Math.round(m.load.reqPerSec), spread, cpuPerRequest(m), ...cells];
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

async function run(opts: BenchOptions): Promise<Result> {
  const [background = 100_000] = taskCounts(opts.extra.tasks, [100_000]);
  const rounds = roundsOption(opts.extra);
  const profiles = opts.profile
    ? {
        annotary: profileDir(RESULTS_DIR, `task-get-${opts.engine}-annotary`),
        bare: profileDir(RESULTS_DIR, `task-get-${opts.engine}-bare`),
      }
    : undefined;

  const logLevel = opts.extra['log-level'];
  const server = await startAnnotary({
    engine: opts.engine,
    nodeFlags: profiles ? cpuProfFlags(profiles.annotary) : [],
    ...(logLevel ? { env: { LOG_LEVEL: logLevel } } : {}),
  });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-bench-bare-'));
  let bare: ServerProcess | undefined;
  try {
    const { projectId, seedSeconds } = await labelledProject(server, background);
    process.stdout.write(`  ${num(background)} tasks seeded in ${seedSeconds.toFixed(1)} s\n`);
    const taskId = await labelledTask(server, projectId);
    const res = await fetch(`${server.url}/v2/task/${taskId}`, { headers: { apikey: server.apiKey } });
    const document = await res.text();
    if (!res.ok) throw new Error(`GET /v2/task/${taskId} answered ${res.status}: ${document.slice(0, 300)}`);
    const task = (JSON.parse(document) as { data: { task: { stage: string; answer: { tools: unknown[] } } } }).data
      .task;
    if (task.stage !== 'Review' || task.answer.tools.length !== 20) {
      throw new Error(`the task is in ${task.stage} with ${task.answer.tools.length} tools, not in Review with 20`);
    }
    bare = await startBare(document, tmp, profiles?.bare);

    const runs = { annotary: [] as LoadFigures[], bare: [] as LoadFigures[] };
    const load = { connections: 10, pipelining: 1, durationSec: opts.durationSec, warmupSec: opts.warmupSec };
    for (let r = 0; r < rounds; r++) {
      runs.annotary.push(
        await runLoad({
          ...load,
          url: `${server.url}/v2/task/${taskId}`,
          headers: { apikey: server.apiKey },
          pids: [server.process.pid],
        }),
      );
      // The bare server's route is /v2/project/:projectId: the same shape (two static segments, one parameter).
      runs.bare.push(await runLoad({ ...load, url: `${bare.url}/v2/project/${taskId}`, pids: [bare.pid] }));
    }
    const bareStopped = await bare.stop();
    const annotaryStopped = await server.process.stop();
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
    const others = (list: LoadFigures[]) => list.map((l) => describeOtherCpu(l.otherCpu)).join('; ');
    const notes = [
      `task: 20 boxes (8 with a nested answer), 5 classifications, in Review after one Label submit; ${num(background)} other tasks in the project`,
      'CPU used by other processes in each round, in cores (PostgreSQL counts as other):',
      `  Annotary: ${others(runs.annotary)}`,
      `  bare:     ${others(runs.bare)}`,
    ];
    if (rounds > 1) notes.unshift(`${rounds} alternating rounds; the table shows each server's median round`);
    notes.push(`ratio per round: ${ratiosOf(runs).join(', ')}`);
    notes.push(`Annotary's log level: ${logLevel ?? 'warn'}${logLevel === 'info' ? ' (a line per request)' : ''}`);
    if (a.cpuUs !== undefined && b.cpuUs !== undefined) {
      notes.push(
        `CPU ratio (bare CPU per request / Annotary's, medians of the rounds): ${(b.cpuUs / a.cpuUs).toFixed(2)} ` +
          `(${Math.round(a.cpuUs)} µs against ${Math.round(b.cpuUs)} µs): what the ratio would be with the server core to itself`,
      );
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
        `Annotary GET /v2/task/{id} on ${opts.engine}: ${num(a.load.reqPerSec)} req/s, ` +
        `p99 ${wholeMs(a.load.latency.p99)} = ${ratio.toFixed(2)} x bare Fastify ` +
        `(${num(b.load.reqPerSec)} req/s, same ${num(bytes)}-byte document)`,
      notes,
      data: {
        ratio,
        documentBytes: bytes,
        backgroundTasks: background,
        seedSeconds,
        rounds,
        annotary: a,
        bare: b,
        allRounds: runs,
        postgresVersion: server.schema?.serverVersion ?? null,
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
  name: 'task-get',
  description:
    'GET /v2/task/{id} (20 boxes, 5 classifications; 100,000 tasks in the project) on an Annotary process vs a bare Fastify process serving the same document; autocannon, 10 connections (--rounds N alternates N times, default 3, --tasks)',
  run,
});
