/**
 * POST /v2/project/{id}/cloud with 100,000 assets in one request to a real Annotary server
 * process: a project with the default workflow (Start -> Label -> Complete), so each asset also
 * becomes a task that passes Start and rests in Label. Timed from the request's start to the
 * 201 (the body is serialized beforehand). Next to it, in the same run, the engine's raw insert
 * rate: the very same asset and task rows inserted straight with the driver in one transaction
 * into a scratch store with Annotary's schema (bench/lib/raw-insert.ts). The server's peak RSS
 * says what holding a 100,000-asset request and its rows costs.
 *
 *   npm run bench -- import-assets [--engine sqlite|postgres|both] [--assets 100000] [--rounds 1]
 *
 * With `--rounds N` each round imports into a new project of the same server (so later rounds
 * write into fuller tables) and inserts into a new scratch store; the median round is shown.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '../src/ids.js';
import { assetSizeFacts } from '../src/store/repositories/metrics-assets.repository.js';
import type { AssetRow, TaskRow } from '../src/store/schema.js';
import { EMPTY_ANSWER } from '../src/workflow/types.js';
import { type AnnotaryServer, BENCH_OWNER_EMAIL, REPO_ROOT, startAnnotary } from './lib/annotary.js';
import { mib, num } from './lib/format.js';
import { readMemory } from './lib/memory.js';
import { monotonicNowUs, cpuProfFlags, profileDir, profileReport, type TimeWindow } from './lib/profile.js';
import { rawInsert, type RawRows } from './lib/raw-insert.js';
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
function assetInputs(count: number, round: number): AssetInput[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `r${round}-street-${String(i).padStart(6, '0')}.jpg`;
    const [width, height] = RESOLUTIONS[i % RESOLUTIONS.length] as readonly [number, number];
    return { externalId: name, data: `https://cdn.example.com/bench/import/${name}`, metadata: { width, height } };
  });
}

/** The rows the import writes for `inputs` (asset.service.ts importAssets), for the raw insert. */
function rowsOf(inputs: AssetInput[], projectId: string): RawRows {
  const now = new Date().toISOString();
  const answer = JSON.stringify(EMPTY_ANSWER);
  const assets: AssetRow[] = [];
  const tasks: TaskRow[] = [];
  for (const a of inputs) {
    const asset: AssetRow = {
      id: newId(),
      project_id: projectId,
      external_id: a.externalId,
      data: a.data,
      context_data: null,
      metadata: JSON.stringify(a.metadata),
      storage_id: null,
      attachments: '[]',
      deleted: 0,
      created_by: BENCH_OWNER_EMAIL,
      created_at: now,
      ...assetSizeFacts(a.data, a.metadata),
    };
    assets.push(asset);
    tasks.push({
      id: newId(),
      project_id: projectId,
      asset_id: asset.id,
      external_id: a.externalId,
      stage_id: 'Label',
      status: 'TODO',
      assignee: null,
      priority: 0,
      answer,
      review_status: null,
      duration: 0,
      total_duration: 0,
      open_issues_count: 0,
      is_pre_labeled: 0,
      type: 'default',
      parent_task_id: null,
      consensus_id: null,
      consensus_score: null,
      brush_data_url: null,
      medical_brush_data_url: null,
      is_draft: 0,
      stage_entered_at: now,
      deleted: 0,
      created_at: now,
      updated_at: now,
      updated_by: BENCH_OWNER_EMAIL,
      completed_at: null,
      completed_by: null,
    });
  }
  return { assets, tasks };
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
  const inputs = assetInputs(count, round);
  const body = JSON.stringify({ assets: inputs });
  const fromUs = monotonicNowUs();
  const start = process.hrtime.bigint();
  const res = await fetch(`${server.url}/v2/project/${projectId}/cloud`, {
    method: 'POST',
    headers: { apikey: server.apiKey, 'content-type': 'application/json' },
    body,
  }).catch((err: unknown) => {
    throw new Error(`POST /cloud: ${String(err)}\nserver output:\n${server.process.output()}`);
  });
  const text = await res.text();
  const importSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  const window = { fromUs, toUs: monotonicNowUs() };
  if (res.status !== 201) throw new Error(`POST /cloud answered ${res.status}: ${text.slice(0, 500)}`);
  const created = (JSON.parse(text) as { data: { assetsCreated: number } }).data.assetsCreated;
  if (created !== count) throw new Error(`POST /cloud created ${created} assets, not ${count}`);
  const inLabel = await server.api<{ data: { total: number } }>(
    'GET',
    `/project/${projectId}/tasks?stage=Label&limit=1&fields=stage`,
  );
  if (inLabel.data.total !== count) throw new Error(`${inLabel.data.total} tasks rest in Label, not ${count}`);

  const raw = await rawInsert(server, projectId, rowsOf(inputs, projectId));
  return {
    importSeconds,
    rawSeconds: raw.seconds,
    rawMethod: raw.method,
    bodyBytes: Buffer.byteLength(body),
    window,
  };
}

function medianBy<T>(list: T[], key: (t: T) => number): T {
  const sorted = [...list].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor((sorted.length - 1) / 2)] as T;
}

function spread(values: number[]): string {
  return values.length > 1 ? `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)} s` : '-';
}

async function run(opts: BenchOptions): Promise<Result> {
  const count = Number(String(opts.extra.assets ?? 100_000).replace(/_/g, ''));
  if (!Number.isInteger(count) || count < 1) throw new Error('--assets must be a whole number >= 1');
  const rounds = Number(opts.extra.rounds ?? 1);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number >= 1');
  const profile = opts.profile ? profileDir(RESULTS_DIR, `import-assets-${opts.engine}`) : undefined;

  const server = await startAnnotary({ engine: opts.engine, nodeFlags: profile ? cpuProfFlags(profile) : [] });
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
      `raw insert: the same ${num(2 * count)} rows of the same shape into a scratch store migrated with Annotary's schema ` +
        `(same indexes and foreign keys), ${raw.rawMethod}`,
      `server RSS before the first import ${mib(rssBefore)}, peak ${mib(peakRssBytes)} (VmHWM)`,
      `goal (issue 3): at most 5 s on SQLite`,
    ];
    if (rounds > 1) notes.push(`${rounds} rounds, each into a new project (fuller tables each time); median shown`);
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
            `raw insert (${opts.engine})`,
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
        `${m.importSeconds.toFixed(2)} s (${rate(m.importSeconds)}) = ${ratio.toFixed(1)} x the raw insert ` +
        `of the same rows (${raw.rawSeconds.toFixed(2)} s); server peak RSS ${mib(peakRssBytes)}`,
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
    'POST /v2/project/{id}/cloud with 100,000 assets in one request (default workflow: each becomes a task in Label) vs the raw insert of the same rows with the driver; server peak RSS (--assets, --rounds)',
  run,
});
