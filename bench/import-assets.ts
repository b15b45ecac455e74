/**
 * POST /v2/project/{id}/cloud with 100,000 assets in one request to the built Annotary server
 * (`node dist/cli/index.js serve`, as people run it): a project with the default workflow
 * (Start -> Label -> Complete), so each asset also becomes a task that passes Start and rests in
 * Label. Next to it, alternated with it round by round, the raw import: the very same request
 * body POSTed to a plain node:http process that parses it and inserts the same asset and task
 * rows straight with the driver in one transaction into a scratch store with Annotary's schema
 * (bench/servers/raw-import.ts). Both are timed the same way, from sending the request (its body
 * serialized beforehand) to the answer. The server's peak RSS (VmHWM) says what holding a
 * 100,000-asset request and its rows costs.
 *
 *   npm run bench -- import-assets [--engine sqlite|postgres|both] [--assets 100000] [--rounds 3]
 *
 * Each round imports into a new project of the same server (so later rounds write into fuller
 * tables) and into a new scratch store; the median round is shown with the range.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type AnnotaryServer, REPO_ROOT, startAnnotary } from './lib/annotary.js';
import { mib, num } from './lib/format.js';
import { readMemory } from './lib/memory.js';
import { monotonicNowUs, cpuProfFlags, profileDir, profileReport, type TimeWindow } from './lib/profile.js';
import { startRawImporter } from './lib/raw-insert.js';
import { medianBy, roundsOption, spreadOf } from './lib/rounds.js';
import { RESULTS_DIR } from './lib/results.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const RESOLUTIONS = [
  [1920, 1080],
  [1280, 720],
  [4032, 3024],
] as const;

interface AssetInput {
  externalId: string;
  data: string;
  metadata: { width: number; height: number };
}

/** What a client sends: a URL, an external id and the image size, per asset. */
export function assetInputs(count: number, round: number): AssetInput[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `r${round}-street-${String(i).padStart(6, '0')}.jpg`;
    const [width, height] = RESOLUTIONS[i % RESOLUTIONS.length] as readonly [number, number];
    return { externalId: name, data: `https://cdn.example.com/bench/import/${name}`, metadata: { width, height } };
  });
}

/** POSTs the body and waits for the whole answer: the one clock of both sides. */
async function timedPost(url: string, headers: Record<string, string>, body: string) {
  const start = process.hrtime.bigint();
  const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
  const text = await res.text();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (res.status !== 201) throw new Error(`POST ${url} answered ${res.status}: ${text.slice(0, 500)}`);
  return { seconds, created: (JSON.parse(text) as { data: { assetsCreated: number } }).data.assetsCreated };
}

interface Round {
  importSeconds: number;
  rawSeconds: number;
  rawMethod: string;
  bodyBytes: number;
  window: TimeWindow;
}

async function createProject(server: AnnotaryServer, round: number): Promise<string> {
  const created = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', {
    name: `Import ${round}`,
    description: 'import benchmark: default workflow Start -> Label -> Complete',
  });
  return created.data.project._id;
}

async function importOnce(server: AnnotaryServer, count: number, round: number): Promise<Round> {
  const projectId = await createProject(server, round);
  const body = JSON.stringify({ assets: assetInputs(count, round) });
  const fromUs = monotonicNowUs();
  const imported = await timedPost(
    `${server.url}/v2/project/${projectId}/cloud`,
    { apikey: server.apiKey },
    body,
  ).catch((err: unknown) => {
    throw new Error(`POST /cloud: ${String(err)}\nserver output:\n${server.process.output()}`);
  });
  const window = { fromUs, toUs: monotonicNowUs() };
  if (imported.created !== count) throw new Error(`POST /cloud created ${imported.created} assets, not ${count}`);
  const inLabel = await server.api<{ data: { total: number } }>(
    'GET',
    `/project/${projectId}/tasks?stage=Label&limit=1&fields=stage`,
  );
  if (inLabel.data.total !== count) throw new Error(`${inLabel.data.total} tasks rest in Label, not ${count}`);

  const raw = await startRawImporter(server, projectId);
  try {
    const inserted = await timedPost(raw.url, {}, body);
    if (inserted.created !== count) throw new Error(`the raw import created ${inserted.created} assets, not ${count}`);
    return {
      importSeconds: imported.seconds,
      rawSeconds: inserted.seconds,
      rawMethod: raw.method,
      bodyBytes: Buffer.byteLength(body),
      window,
    };
  } finally {
    await raw.stop();
  }
}

const spread = (values: number[]) => spreadOf(values, (n) => `${n.toFixed(2)} s`);

async function run(opts: BenchOptions): Promise<Result> {
  const count = Number(String(opts.extra.assets ?? 100_000).replace(/_/g, ''));
  if (!Number.isInteger(count) || count < 1) throw new Error('--assets must be a whole number >= 1');
  const rounds = roundsOption(opts.extra);
  const profile = opts.profile ? profileDir(RESULTS_DIR, `import-assets-${opts.engine}`) : undefined;

  const server = await startAnnotary({
    engine: opts.engine,
    runtime: 'built',
    nodeFlags: profile ? cpuProfFlags(profile) : [],
  });
  try {
    const rssBefore = readMemory(server.process.pid)?.rssBytes ?? Number.NaN;
    const all: Round[] = [];
    for (let r = 0; r < rounds; r++) {
      all.push(await importOnce(server, count, r));
      process.stdout.write(
        `  round ${r + 1}: import ${all[r]?.importSeconds.toFixed(2)} s, raw ${all[r]?.rawSeconds.toFixed(2)} s\n`,
      );
      await sleep(200);
    }
    const { peakRssBytes } = await server.process.stop();

    const m = medianBy(all, (x) => x.importSeconds);
    const raw = medianBy(all, (x) => x.rawSeconds);
    const ratio = m.importSeconds / raw.rawSeconds;
    const rate = (s: number) => `${num(count / s)}/s`;
    const notes = [
      `${num(count)} assets in one ${mib(m.bodyBytes)} request (externalId, data URL, metadata {width, height} each); ` +
        `each becomes an asset row and a task row resting in Label: ${num(2 * count)} rows`,
      `raw import: the same request to a plain node:http process that parses it and inserts the same ${num(2 * count)} rows ` +
        `into a scratch store migrated with Annotary's schema (same indexes and foreign keys), ${raw.rawMethod}; ` +
        `both timed from sending the request to the answer, alternated round by round`,
      'server: node dist/cli/index.js serve (the built server, as npm start runs it)',
      `server RSS before the first import ${mib(rssBefore)}, peak ${mib(peakRssBytes)} (VmHWM)`,
      `goal: at most 5 s on SQLite`,
    ];
    if (rounds > 1) notes.push(`${rounds} rounds, each into a new project (fuller tables each time); median shown`);
    notes.push(
      `time over the raw import per round: ${all.map((x) => (x.importSeconds / x.rawSeconds).toFixed(1)).join(', ')}`,
    );
    let profileSummary: unknown = null;
    if (profile) {
      notes.push('profiled run (--cpu-prof): the figures above are lower than an unprofiled run');
      const report = profileReport(
        'annotary',
        profile,
        REPO_ROOT,
        15,
        all.map((x) => x.window),
      );
      notes.push(...report.lines);
      profileSummary = report.summary ?? null;
    }
    return {
      table: {
        columns: ['what', 'time', 'assets/s', 'x raw', 'rounds', 'peak RSS'],
        rows: [
          [
            `Annotary POST /cloud (${opts.engine})`,
            `${m.importSeconds.toFixed(2)} s`,
            rate(m.importSeconds),
            `${ratio.toFixed(1)} x`,
            spread(all.map((x) => x.importSeconds)),
            mib(peakRssBytes),
          ],
          [
            `raw import (${opts.engine})`,
            `${raw.rawSeconds.toFixed(2)} s`,
            rate(raw.rawSeconds),
            '1.0 x',
            spread(all.map((x) => x.rawSeconds)),
            '-',
          ],
        ],
      },
      summary:
        `import of ${num(count)} assets through POST /v2/project/{id}/cloud on ${opts.engine}: ` +
        `${m.importSeconds.toFixed(2)} s (${rate(m.importSeconds)}) = ${ratio.toFixed(1)} x the raw import ` +
        `of the same request (${raw.rawSeconds.toFixed(2)} s); server peak RSS ${mib(peakRssBytes)}`,
      notes,
      data: {
        assets: count,
        rounds: all,
        importSeconds: m.importSeconds,
        rawSeconds: raw.rawSeconds,
        rawMethod: raw.rawMethod,
        ratio,
        bodyBytes: m.bodyBytes,
        rssBeforeBytes: rssBefore,
        peakRssBytes,
        postgresVersion: server.schema?.serverVersion ?? null,
        profile: profileSummary,
      },
    };
  } finally {
    await server.stop();
  }
}

export default defineBenchmark({
  name: 'import-assets',
  description:
    "POST /v2/project/{id}/cloud with 100,000 assets in one request (default workflow: each becomes a task in Label) vs a raw import of the same request with the driver, alternated; built server's peak RSS (--assets, --rounds, default 3)",
  run,
});
