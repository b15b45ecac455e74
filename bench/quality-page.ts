/**
 * The Quality page's queries on a project of 1,000,000 labelled tasks (the metrics benchmark's
 * data: 900,000 review decisions in the task history) with 10,000 benchmark submissions, 10,000
 * decided consensus rounds (30,000 kept measures) and 10,000 issues, seeded straight into the
 * store in bulk (on PostgreSQL the tasks are made by the database itself, seed-tasks-sql.ts). Each
 * of the page's four aggregates and the performance report's work figures is timed on its own
 * (median of `--rounds`) over all time, the first 30 days, one batch, both batches, from inside
 * the busiest hour (on a whole minute) and from inside a busy minute, then the whole
 * `POST /project/{id}/quality` through the server.
 *
 *   npm run bench -- quality-page [--engine sqlite|postgres|both] [--tasks 1000000] [--rounds 5]
 */
import { newId } from '../src/ids.js';
import { insertInChunks } from '../src/store/chunks.js';
import { type Executor, openStore } from '../src/store/db.js';
import type { PerformanceScope } from '../src/store/repositories/performance.repository.js';
import {
  agreementCells,
  benchmarkDays,
  issueCodeSets,
  reviewDays,
} from '../src/store/repositories/quality.repository.js';
import { countedWorkFigures, foldGatheredWorkCounts } from '../src/store/repositories/work-count.repository.js';
import { type AnnotaryServer, startAnnotary } from './lib/annotary.js';
import { num } from './lib/format.js';
import { labelledProject, taskCounts, wholeNumber } from './lib/labelled-project.js';
import { timed } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const SUBMISSIONS = 10_000;
const ROUNDS_DECIDED = 10_000;
const ISSUES = 10_000;
const LABELERS = 20;
const DAY_MS = 86_400_000;
/** The seeded tasks' history runs from here (seed-tasks.ts); the extras spread over 200 days. */
const BASE_TIME = Date.parse('2025-01-01T00:00:00.000Z');
/** 02:10: the seeded review decisions fall from 02:00:00 to 02:16:40, one a millisecond per task. */
const BUSY_START_MS = 2 * 3_600_000 + 10 * 60_000;

const at = (i: number, spread: number) => new Date(BASE_TIME + ((i * 7919) % spread) * 60_000).toISOString();

function openSeedStore(server: AnnotaryServer) {
  return openStore(
    server.schema
      ? { databaseUrl: server.schema.databaseUrl, poolSize: 2 }
      : { sqliteFile: `${server.dataDir}/annotary.db` },
  );
}

/** Benchmark submissions, consensus measures and issues on the first tasks of the project. */
async function seedQuality(server: AnnotaryServer, projectId: string): Promise<number> {
  const started = Date.now();
  const store = await openSeedStore(server);
  try {
    const tasks = await store.db
      .selectFrom('tasks')
      .select(['id', 'asset_id'])
      .where('project_id', '=', projectId)
      .orderBy('id')
      .limit(ROUNDS_DECIDED + 100)
      .execute();
    const spread = 200 * 24 * 60;
    const task = (i: number) => tasks[i % tasks.length] as { id: string; asset_id: string };
    await store.db.transaction().execute(async (trx) => {
      await insertInChunks(
        trx,
        'benchmark_submissions',
        Array.from({ length: SUBMISSIONS }, (_, i) => ({
          id: newId(BASE_TIME + i),
          project_id: projectId,
          // 100 benchmarks, each worked by many labelers.
          task_id: task(i % 100).id,
          labeler: `labeler-${i % LABELERS}@bench.example`,
          answer: '{"tools":[],"classifications":[],"relations":[]}',
          score: (i * 37) % 101,
          detail: '[]',
          created_at: at(i, spread),
        })),
      );
      // Per round: the car's and the pedestrian's IoU, and one pair of weather answers.
      const measures = Array.from({ length: ROUNDS_DECIDED }, (_, i) => {
        const base = {
          project_id: projectId,
          parent_task_id: task(i).id,
          asset_id: task(i).asset_id,
          consensus_id: 'Consensus',
          decided_at: at(i, spread),
        };
        const [a, b] = [`"weather-${i % 3}"`, `"weather-${(i + (i % 2)) % 3}"`];
        const item = (schema_id: string, kind: string, answer_a: string, answer_b: string, value: number) => ({
          ...base,
          id: newId(BASE_TIME + i),
          schema_id,
          kind,
          answer_a,
          answer_b,
          value,
        });
        return [
          item('car', 'tool', '', '', (i % 10) / 10),
          item('pedestrian', 'tool', '', '', (i % 7) / 7),
          item('weather', 'classification', a, b, a === b ? 1 : 0),
        ];
      }).flat();
      await insertInChunks(trx, 'consensus_agreements', measures);
      await insertInChunks(
        trx,
        'issues',
        Array.from({ length: ISSUES }, (_, i) => ({
          id: newId(BASE_TIME + i),
          project_id: projectId,
          task_id: task(i).id,
          asset_id: task(i).asset_id,
          stage_id: 'Review',
          content: 'loose box',
          position: null,
          page: null,
          object_id: null,
          error_codes: JSON.stringify(i % 3 === 0 ? [] : [`E${i % 5}`]),
          status: 'open',
          comments: '[]',
          created_by: 'reviewer@bench.example',
          created_at: at(i, spread),
          updated_at: at(i, spread),
          deleted: 0,
        })),
      );
    });
  } finally {
    await store.close();
  }
  if (server.schema) await server.schema.query('VACUUM ANALYZE');
  return (Date.now() - started) / 1000;
}

const QUERIES: [string, (db: Executor, s: PerformanceScope) => Promise<unknown[]>][] = [
  ['benchmark scores per labeler and day', benchmarkDays],
  ['consensus agreement per class', agreementCells],
  ['review decisions per reviewer and day', reviewDays],
  ['issues per error code', issueCodeSets],
  ['performance report: work per person and stage', countedWorkFigures],
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
}

async function run(opts: BenchOptions): Promise<Result> {
  const [tasks = 1_000_000] = taskCounts(opts.extra.tasks, [1_000_000]);
  const rounds = wholeNumber(opts.extra.rounds, 5, 'rounds');
  const server = await startAnnotary({ engine: opts.engine });
  try {
    const { projectId, seedSeconds } = await labelledProject(server, tasks, 3, true);
    const extraSeconds = await seedQuality(server, projectId);
    process.stdout.write(
      `  ${num(tasks)} tasks in ${seedSeconds.toFixed(1)} s, the rest in ${extraSeconds.toFixed(1)} s\n`,
    );
    const batches = await server.api<{ data: { batches: { _id: string }[] } }>('GET', `/batches/${projectId}`);
    // The seeded review decisions all fall on the first day: this range holds every one of them.
    const first30 = { from: new Date(BASE_TIME).toISOString(), to: new Date(BASE_TIME + 30 * DAY_MS).toISOString() };
    const scopes: [string, PerformanceScope][] = [
      ['all time', { projectId }],
      ['first 30 days', { projectId, ...first30 }],
      ['one batch', { projectId, batchIds: [batches.data.batches[0]?._id as string] }],
      ['both batches', { projectId, batchIds: batches.data.batches.map((b) => b._id) }],
      // An interval whose start falls inside the hour holding the last 40 % of the decisions, on
      // a whole minute: its minutes are read from the minute counts.
      ['from inside the busiest hour', { projectId, from: new Date(BASE_TIME + BUSY_START_MS).toISOString() }],
      // The same 30.5 s later: the 29,500 decisions of those seconds are read from the history.
      ['from inside a busy minute', { projectId, from: new Date(BASE_TIME + BUSY_START_MS + 30_500).toISOString() }],
    ];
    const store = await openSeedStore(server);
    // PostgreSQL: the counts' delta rows folded as the job worker folds them.
    while ((await foldGatheredWorkCounts(store.db)) > 0);
    const rows: (string | number)[][] = [];
    const figures: { query: string; scope: string; medianMs: number; rows: number }[] = [];
    try {
      for (const [query, read] of QUERIES) {
        for (const [scopeName, scope] of scopes) {
          const times: number[] = [];
          let count = 0;
          for (let r = 0; r < rounds + 1; r++) {
            const { ms, value } = await timed(() => read(store.db, scope));
            if (r > 0) times.push(ms);
            count = value.length;
          }
          figures.push({ query, scope: scopeName, medianMs: median(times), rows: count });
          rows.push([query, scopeName, `${median(times).toFixed(1)} ms`, count]);
        }
      }
    } finally {
      await store.close();
    }
    const page: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const { ms } = await timed(() => server.api('POST', `/project/${projectId}/quality`, {}));
      page.push(ms);
    }
    rows.push(['POST /project/{id}/quality (all four, HTTP)', 'all time', `${median(page).toFixed(1)} ms`, '']);
    const slowest = figures.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
    return {
      table: { columns: ['query', 'scope', `median of ${rounds}`, 'rows answered'], rows },
      summary:
        `Quality page on ${opts.engine}, ${num(tasks)} tasks and ${num(SUBMISSIONS)} benchmark submissions: ` +
        `slowest query ${slowest.query} (${slowest.scope}) ${slowest.medianMs.toFixed(0)} ms, target 300 ms; ` +
        `the whole page ${median(page).toFixed(0)} ms`,
      notes: [
        'each query timed in the benchmark process on its own connection, after one unmeasured run',
        `the page's request through the server, key check and JSON included`,
      ],
      data: { tasks, seedSeconds, extraSeconds, rounds, figures, pageMs: page },
    };
  } finally {
    await server.stop();
  }
}

export default defineBenchmark({
  name: 'quality-page',
  description: "the Quality page's four queries at 1,000,000 tasks and 10,000 benchmark submissions",
  run,
});
