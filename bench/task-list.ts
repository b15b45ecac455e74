/**
 * GET /v2/project/{id}/tasks?limit=1000 on a project of 1,000,000 labelled tasks (the data of
 * the export and metrics benchmarks, seeded straight into the store): the first page and a deep
 * page (page 990: offset 989,000), each without and with `includeAnswer=true`, then listings
 * filtered by status (`status[eq]=Completed`), stage (`stage=Review`) and batch (`batches=` the
 * January batch), each on its first page and ten pages before its end (their totals come from
 * the kept counts of migration 012), on a real Annotary server process. Each scenario is asked once unmeasured ("first"),
 * then `--requests` times in a row (default 20): median and p90. The goal is a
 * median of 100 ms at most for the unfiltered pages.
 *
 * To say where the time goes, the benchmark then runs the listing's own pieces straight on the
 * store, over its own connection (median of 5 each): the stored total, the page's ids query
 * (with the walk the listing picks) and the whole page (ids, then rows), the count(*) a filtered
 * listing runs instead of the stored total, and the look-ups of the page's assets and batches;
 * and prints the plans of the ids, rows and count queries (SQLite: EXPLAIN QUERY PLAN;
 * PostgreSQL: EXPLAIN (ANALYZE, BUFFERS)).
 *
 *   npm run bench -- task-list [--engine sqlite|postgres|both] [--tasks 1000000] [--requests 20] [--deep-page 990]
 */
import { type AnnotaryServer, startAnnotary } from './lib/annotary.js';
import { num } from './lib/format.js';
import { labelledProject, taskCounts, wholeNumber } from './lib/labelled-project.js';
import { measureListingPieces } from './lib/task-list-store.js';
import { summarize, timed } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const LIMIT = 1000;
const GOAL_MS = 100;

interface Scenario {
  label: string;
  page: number;
  includeAnswer: boolean;
  /** Extra query string (a filter), with its leading &. */
  filter?: string;
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

async function fetchPage(server: AnnotaryServer, projectId: string, s: Scenario) {
  const query = `limit=${LIMIT}&page=${s.page}${s.includeAnswer ? '&includeAnswer=true' : ''}${s.filter ?? ''}`;
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

const ms = (v: number) => `${Math.round(v)} ms`;

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
    const batches = await server.api<{ data: { batches: { _id: string; name: string }[] } }>(
      'GET',
      `/batches/${projectId}`,
    );
    const january = batches.data.batches.find((b) => b.name === 'January')?._id;
    if (!january) throw new Error('the seeded project has no batch "January"');
    const filters = [
      { label: 'status=Completed', query: '&status[eq]=Completed' },
      { label: 'stage=Review', query: '&stage=Review' },
      { label: 'batch=January', query: `&batches=${january}` },
    ];
    for (const f of filters) {
      const filtered = JSON.parse(
        await fetchPage(server, projectId, { label: f.label, page: 1, includeAnswer: false, filter: f.query }),
      ) as { data: { total: number } };
      const lastFiltered = Math.ceil(filtered.data.total / LIMIT);
      for (const page of new Set([1, Math.max(1, lastFiltered - 10)]))
        scenarios.push({ label: `${f.label}, page ${page}`, page, includeAnswer: false, filter: f.query });
    }
    const http: HttpFigures[] = [];
    for (const s of scenarios) {
      http.push(await measureHttp(server, projectId, s, requests));
      process.stdout.write(`  ${s.label}: median ${Math.round(http.at(-1)?.medianMs ?? 0)} ms\n`);
    }
    const db = await measureListingPieces(server, projectId, LIMIT, [1, deepPage]);
    const dbOf = (s: Scenario) => (s.filter ? undefined : db.find((d) => d.page === s.page));

    const notes = [
      `GET /v2/project/{id}/tasks?limit=${LIMIT}&page=N, sort -createdAt (the default); ${requests} sequential requests per row after one unmeasured ("first")`,
      `goal: median at most ${GOAL_MS} ms, unfiltered pages, and the same for pages filtered by status, stage or batch`,
      "store columns (unfiltered rows): the listing's own pieces straight on the store over another connection, median of 5:",
      '  stored total (task_counts); ids query (walk = the end it starts from and the entries it skips);',
      '  page = ids query, then the rows of those ids; count(*) (what a filtered listing runs for its total);',
      '  assets + batches of the page',
    ];
    for (const d of db) {
      const walk = `${d.walk.reverse ? 'from the end' : 'from the start'}, offset ${num(d.walk.offset)}`;
      notes.push(`plan of the ids query, page ${d.page} (${walk}):`, ...d.plans.ids.map((l) => `  ${l}`));
    }
    notes.push('plan of the rows query (1000 ids):', ...(db[0]?.plans.rows ?? []).map((l) => `  ${l}`));
    notes.push('plan of the count(*) query:', ...(db[0]?.plans.count ?? []).map((l) => `  ${l}`));
    const deep = http.filter((h) => h.scenario.page === deepPage && !h.scenario.filter);
    const worst = deep.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
    return {
      table: {
        columns: [
          'request',
          'first',
          'median',
          'p90',
          'bytes',
          'total',
          'ids query',
          'walk',
          'page',
          'count(*)',
          'assets+batches',
        ],
        rows: http.map((h) => {
          const d = dbOf(h.scenario);
          const walk = d ? `${d.walk.reverse ? 'end' : 'start'} +${num(d.walk.offset)}` : '-';
          return [h.scenario.label, ms(h.firstMs), ms(h.medianMs), ms(h.p90Ms), num(h.bytes)].concat(
            d
              ? [ms(d.totalMs), ms(d.idsMs), walk, ms(d.pageMs), ms(d.countMs), ms(d.extrasMs)]
              : ['-', '-', '-', '-', '-', '-'],
          );
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
    'GET /v2/project/{id}/tasks?limit=1000 on 1,000,000 tasks: page 1 and page 990, with and without answers, and a filtered listing; median and p90 of 20 requests, store query times and plans (--tasks, --requests, --deep-page)',
  run,
});
