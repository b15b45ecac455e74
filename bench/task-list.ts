/**
 * GET /v2/project/{id}/tasks?limit=1000 on a project of 1,000,000 labelled tasks (the data of
 * the export and metrics benchmarks, seeded straight into the store): the first page and a deep
 * page (page 990: offset 989,000), each without and with `includeAnswer=true`, on a real
 * Annotary server process. Each scenario is asked once unmeasured ("first"), then `--requests`
 * times in a row (default 20): median and p90. The goal of issue 3 is a median of 100 ms at most.
 *
 * To say where the time goes, the benchmark then runs the listing's own queries straight on the
 * store, over its own connection (median of 5 each): the page query, the count query and the
 * two look-ups of the page's assets and batches; and prints the plans of the page and count
 * queries (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN (ANALYZE, BUFFERS)).
 *
 *   npm run bench -- task-list [--engine sqlite|postgres|both] [--tasks 1000000] [--requests 20] [--deep-page 990]
 */
import { CompiledQuery } from 'kysely';
import { loadTaskExtras } from '../src/services/task-view.js';
import { openStore, type Store } from '../src/store/db.js';
import { applyTaskFilter } from '../src/store/repositories/task.repository.js';
import type { TaskRow } from '../src/store/schema.js';
import { type AnnotaryServer, startAnnotary } from './lib/annotary.js';
import { num } from './lib/format.js';
import { labelledProject, taskCounts } from './lib/labelled-project.js';
import { summarize, timed } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const LIMIT = 1000;
const GOAL_MS = 100;

interface Scenario {
  label: string;
  page: number;
  includeAnswer: boolean;
}

interface HttpFigures {
  scenario: Scenario;
  firstMs: number;
  samples: number[];
  medianMs: number;
  p90Ms: number;
  bytes: number;
  total: number;
}

interface DbFigures {
  page: number;
  listMs: number;
  countMs: number;
  extrasMs: number;
  plans: { list: string[]; count: string[] };
}

function wholeNumber(raw: string | undefined, fallback: number, flag: string): number {
  const n = raw === undefined ? fallback : Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} must be a whole number >= 1, got ${raw}`);
  return n;
}

async function fetchPage(server: AnnotaryServer, projectId: string, s: Scenario) {
  const query = `limit=${LIMIT}&page=${s.page}${s.includeAnswer ? '&includeAnswer=true' : ''}`;
  const res = await fetch(`${server.url}/v2/project/${projectId}/tasks?${query}`, {
    headers: { apikey: server.apiKey },
  }).catch((err: unknown) => {
    throw new Error(`${s.label}: ${String(err)}\nserver output:\n${server.process.output()}`);
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${s.label} answered ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

async function measureHttp(
  server: AnnotaryServer,
  projectId: string,
  s: Scenario,
  requests: number,
): Promise<HttpFigures> {
  const first = await timed(() => fetchPage(server, projectId, s));
  const body = JSON.parse(first.value) as { data: { tasks: unknown[]; total: number } };
  if (body.data.tasks.length !== LIMIT) throw new Error(`${s.label}: ${body.data.tasks.length} tasks, not ${LIMIT}`);
  const samples: number[] = [];
  for (let i = 0; i < requests; i++) samples.push((await timed(() => fetchPage(server, projectId, s))).ms);
  const sum = summarize(samples);
  return {
    scenario: s,
    firstMs: first.ms,
    samples,
    medianMs: sum.p50,
    p90Ms: sum.p90,
    bytes: Buffer.byteLength(first.value),
    total: body.data.total,
  };
}

/** The listing's page and count queries as task.repository.ts listTasks builds them (default sort -createdAt). */
function listingQueries(store: Store, projectId: string, page: number) {
  const base = applyTaskFilter(store.db.selectFrom('tasks'), { projectId, columns: [], batches: [] });
  return {
    list: base
      .selectAll('tasks')
      .orderBy('tasks.created_at', 'desc')
      .orderBy('tasks.id', 'desc')
      .offset((page - 1) * LIMIT)
      .limit(LIMIT)
      .compile(),
    count: base.select((eb) => eb.fn.countAll<number>().as('n')).compile(),
  };
}

async function medianMs(fn: () => Promise<unknown>, times = 5): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) samples.push((await timed(fn)).ms);
  return summarize(samples).p50;
}

async function plan(store: Store, q: CompiledQuery): Promise<string[]> {
  if (store.engine === 'postgres') {
    const r = await store.db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`EXPLAIN (ANALYZE, BUFFERS) ${q.sql}`, [...q.parameters]),
    );
    return r.rows.map((row) => row['QUERY PLAN']);
  }
  const r = await store.db.executeQuery<{ id: number; parent: number; detail: string }>(
    CompiledQuery.raw(`EXPLAIN QUERY PLAN ${q.sql}`, [...q.parameters]),
  );
  const depth = new Map<number, number>([[0, 0]]);
  return r.rows.map((row) => {
    const d = (depth.get(row.parent) ?? 0) + 1;
    depth.set(row.id, d);
    return `${'  '.repeat(d - 1)}${row.detail}`;
  });
}

async function measureDb(server: AnnotaryServer, projectId: string, pages: number[]): Promise<DbFigures[]> {
  const store = await openStore(
    server.schema
      ? { databaseUrl: server.schema.databaseUrl, poolSize: 1 }
      : { sqliteFile: `${server.dataDir}/annotary.db` },
  );
  try {
    const out: DbFigures[] = [];
    for (const page of pages) {
      const q = listingQueries(store, projectId, page);
      let rows: TaskRow[] = [];
      const listMs = await medianMs(async () => {
        rows = (await store.db.executeQuery<TaskRow>(q.list)).rows;
      });
      if (rows.length !== LIMIT) throw new Error(`page ${page}: the page query answered ${rows.length} rows`);
      const countMs = await medianMs(() => store.db.executeQuery(q.count));
      const extrasMs = await medianMs(() => loadTaskExtras(store.db, rows));
      out.push({
        page,
        listMs,
        countMs,
        extrasMs,
        plans: { list: await plan(store, q.list), count: await plan(store, q.count) },
      });
    }
    return out;
  } finally {
    await store.close();
  }
}

async function run(opts: BenchOptions): Promise<Result> {
  const [tasks = 1_000_000] = taskCounts(opts.extra.tasks, [1_000_000]);
  const requests = wholeNumber(opts.extra.requests, 20, 'requests');
  const deepPage = wholeNumber(opts.extra['deep-page'], 990, 'deep-page');
  if ((deepPage - 1) * LIMIT >= tasks)
    throw new Error(`--deep-page ${deepPage} is past the last page of ${tasks} tasks`);
  const server = await startAnnotary({ engine: opts.engine });
  try {
    const { projectId, seedSeconds } = await labelledProject(server, tasks);
    process.stdout.write(`  ${num(tasks)} tasks seeded in ${seedSeconds.toFixed(1)} s\n`);
    const scenarios: Scenario[] = [1, deepPage].flatMap((page) => [
      { label: `page ${page}`, page, includeAnswer: false },
      { label: `page ${page}, includeAnswer`, page, includeAnswer: true },
    ]);
    const http: HttpFigures[] = [];
    for (const s of scenarios) {
      http.push(await measureHttp(server, projectId, s, requests));
      process.stdout.write(`  ${s.label}: median ${Math.round(http.at(-1)?.medianMs ?? 0)} ms\n`);
    }
    const db = await measureDb(server, projectId, [1, deepPage]);
    const dbOf = (page: number) => db.find((d) => d.page === page);

    const ms = (v: number) => `${Math.round(v)} ms`;
    const notes = [
      `GET /v2/project/{id}/tasks?limit=${LIMIT}&page=N, sort -createdAt (the default); ${requests} sequential requests per row after one unmeasured ("first")`,
      `goal (issue 3): median at most ${GOAL_MS} ms`,
      "store columns: the listing's own queries run straight on the store over another connection, median of 5:",
      '  page query (SELECT tasks.* ... ORDER BY created_at DESC, id DESC LIMIT/OFFSET), count query, assets + batches of the page',
    ];
    for (const d of db) {
      notes.push(`plan of the page query, page ${d.page}:`, ...d.plans.list.map((l) => `  ${l}`));
      if (d.page === 1)
        notes.push('plan of the count query (the same on every page):', ...d.plans.count.map((l) => `  ${l}`));
    }
    const deep = http.filter((h) => h.scenario.page === deepPage);
    const worst = deep.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
    return {
      table: {
        columns: ['request', 'first', 'median', 'p90', 'answer bytes', 'page query', 'count query', 'assets+batches'],
        rows: http.map((h) => {
          const d = dbOf(h.scenario.page);
          return [
            h.scenario.label,
            ms(h.firstMs),
            ms(h.medianMs),
            ms(h.p90Ms),
            num(h.bytes),
            d ? ms(d.listMs) : '-',
            d ? ms(d.countMs) : '-',
            d ? ms(d.extrasMs) : '-',
          ];
        }),
      },
      summary:
        `task listing on ${opts.engine}, ${num(tasks)} tasks, limit ${LIMIT}: page 1 median ` +
        `${ms(http[0]?.medianMs ?? Number.NaN)}, page ${deepPage} median ${ms(deep[0]?.medianMs ?? Number.NaN)} ` +
        `(${ms(worst.medianMs)} with answers); goal ${GOAL_MS} ms`,
      notes,
      data: {
        tasks,
        seedSeconds,
        requests,
        deepPage,
        limit: LIMIT,
        http,
        db,
        postgresVersion: server.schema?.serverVersion ?? null,
      },
    };
  } finally {
    await server.stop();
  }
}

export default defineBenchmark({
  name: 'task-list',
  description:
    'GET /v2/project/{id}/tasks?limit=1000 on 1,000,000 tasks: page 1 and page 990, with and without answers; median and p90 of 20 requests, store query times and plans (--tasks, --requests, --deep-page)',
  run,
});
