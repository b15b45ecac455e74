/**
 * The console on a built server (`node dist/cli/index.js serve`, the console built by vite into
 * dist/web), driven by headless Debian Chromium (playwright-core):
 *
 * (a) first load to interactive of `/projects` for a signed-in person: navigation start to the
 *     page's heading and its project list drawn, each load in a fresh browser context (empty
 *     cache, the session cookie set), one unmeasured load then `--loads` measured (median);
 * (b) the task table's filter-to-rows time on a project of `--tasks` tasks (default 1,000,000,
 *     seeded straight into the store as bench/task-list.ts does): the tasks page opened afresh,
 *     then a filter chosen in its form, from the `change` event to the new total and rows drawn;
 *     `--rounds` times per filter (median);
 * (c) the JavaScript the first route loads (every .js the page fetched for `/projects`), gzipped.
 *
 * Targets: (a) 1 s, (b) 300 ms, (c) 300 KB.
 *
 *   npm run bench -- console [--engine sqlite|postgres|both] [--tasks 1000000] [--loads 7] [--rounds 5]
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { type AnnotaryServer, startAnnotary } from './lib/annotary.js';
import { buildConsole } from './lib/chromium.js';
import { num } from './lib/format.js';
import { labelledProject, taskCounts } from './lib/labelled-project.js';
import { summarize } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const TARGET_LOAD_MS = 1000;
const TARGET_FILTER_MS = 300;
const TARGET_JS_BYTES = 300 * 1024;
const CHROMIUM = process.env.ANNOTARY_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

function wholeNumber(raw: string | undefined, fallback: number, flag: string): number {
  const n = raw === undefined ? fallback : Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} must be a whole number >= 1, got ${raw}`);
  return n;
}

/** A session cookie for the benchmark's owner, signed in with its API key (`POST /v2/session`). */
async function sessionCookie(server: AnnotaryServer) {
  const res = await fetch(`${server.url}/v2/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey: server.apiKey }),
  });
  if (!res.ok) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('annotary_session='));
  const value = cookie?.split(';')[0]?.slice('annotary_session='.length);
  if (!value) throw new Error('sign-in set no annotary_session cookie');
  return { name: 'annotary_session', value, url: server.url };
}

type Cookie = Awaited<ReturnType<typeof sessionCookie>>;

/** A fresh profile (no cache) with the session. */
async function signedInContext(browser: Browser, cookie: Cookie): Promise<BrowserContext> {
  // bypassCSP: the server's CSP forbids eval, which Playwright's per-frame polling of a
  // condition uses; the console's own code runs the same either way.
  const context = await browser.newContext({
    viewport: { width: 1400, height: 900 },
    locale: 'en-GB',
    bypassCSP: true,
  });
  await context.addCookies([cookie]);
  return context;
}

// Code run in the page (strings: this program is type-checked without the DOM's types).
/** The time of the first frame with the heading "Projects" and a row of the project list. */
const LIST_DRAWN = `(() => {
  const heading = [...document.querySelectorAll('h1')].some((h) => h.textContent === 'Projects');
  const row = document.querySelector('section[aria-labelledby="project-list-title"] tbody tr');
  return heading && row ? performance.now() : false;
})()`;
/** The task list's heading shows a settled total ("1000000 tasks", not "... (updating…)"). */
const TOTAL_SHOWN = `(() => /^\\d+ tasks?$/.test(document.querySelector('#task-list-title')?.textContent ?? ''))`;
/** The moment of the filter's change event. */
const LISTEN_CHANGE = `document.addEventListener('change', () => (window.filterAt ??= performance.now()), { capture: true })`;
/** Once the total has changed and rows are drawn: the time since the change, and the total. */
const ROWS_CHANGED = `((old) => {
  const text = document.querySelector('#task-list-title')?.textContent ?? '';
  const row = document.querySelector('table[aria-label="Tasks"] tbody tr:not([aria-hidden])');
  if (!(text !== old && ${TOTAL_SHOWN}() && row && window.filterAt !== undefined)) return false;
  const now = performance.now();
  const asked = performance.getEntriesByType('resource').filter((e) => e.name.includes('/tasks?') && e.startTime >= window.filterAt).at(-1);
  return {
    ms: now - window.filterAt,
    heading: text,
    beforeRequestMs: asked ? asked.startTime - window.filterAt : null,
    requestMs: asked ? asked.responseEnd - asked.startTime : null,
    afterResponseMs: asked ? now - asked.responseEnd : null,
  };
})`;

/** Where a load's time goes (ms since navigation start, resource timing of the page). */
interface LoadSteps {
  /** The shell's scripts (index-*.js and what it imports at once) all received. */
  shellJs: number | null;
  sessionStart: number | null;
  sessionEnd: number | null;
  /** The project list page's own chunk received. */
  pageJs: number | null;
  listStart: number | null;
  listEnd: number | null;
}

const LOAD_STEPS = `(() => {
  const all = performance.getEntriesByType('resource');
  const first = (part) => all.find((e) => e.name.includes(part)) ?? null;
  const session = first('/v2/session');
  const list = first('/v2/listProjects');
  const page = first('/ProjectListPage-');
  const shell = all.filter((e) => e.name.endsWith('.js') && (!session || e.startTime < session.startTime));
  return {
    shellJs: shell.length ? Math.max(...shell.map((e) => e.responseEnd)) : null,
    sessionStart: session?.startTime ?? null,
    sessionEnd: session?.responseEnd ?? null,
    pageJs: page?.responseEnd ?? null,
    listStart: list?.startTime ?? null,
    listEnd: list?.responseEnd ?? null,
  };
})()`;

interface LoadFigures {
  ms: number;
  steps: LoadSteps;
  scripts: { url: string; bytes: number; gzipBytes: number }[];
}

/** (a) and (c): one cold load of /projects, to its heading and list drawn; the scripts it fetched. */
async function coldLoad(browser: Browser, server: AnnotaryServer, cookie: Cookie): Promise<LoadFigures> {
  const context = await signedInContext(browser, cookie);
  try {
    const page = await context.newPage();
    const bodies: Promise<{ url: string; body: Buffer }>[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname.endsWith('.js')) bodies.push(r.body().then((body) => ({ url: r.url(), body })));
    });
    await page.goto(`${server.url}/projects`, { waitUntil: 'commit' });
    // Polled every frame: the time of the first frame with the heading and a row of the list.
    const drawn = await page.waitForFunction(LIST_DRAWN, undefined, { polling: 'raf', timeout: 30_000 });
    const ms = (await drawn.jsonValue()) as number;
    const steps = (await page.evaluate(LOAD_STEPS)) as LoadSteps;
    const scripts = (await Promise.all(bodies)).map(({ url, body }) => ({
      url: new URL(url).pathname,
      bytes: body.length,
      gzipBytes: zlib.gzipSync(body).length,
    }));
    return { ms, scripts, steps };
  } finally {
    await context.close();
  }
}

interface FilterCase {
  label: string;
  /** The form field's label and the option chosen (by its label). */
  field: string;
  option: string;
}

interface FilterFigures {
  ms: number;
  heading: string;
  /** The change event to the list request's start; the request; its answer to the rows drawn. */
  beforeRequestMs: number | null;
  requestMs: number | null;
  afterResponseMs: number | null;
}

const FILTERS: FilterCase[] = [
  { label: 'stage = Review', field: 'Stage', option: 'Review' },
  { label: 'status = Completed', field: 'Status', option: 'Completed' },
  { label: 'batch = January', field: 'Batch', option: 'January' },
];

/** (b): the tasks page opened afresh, then one filter chosen; from the change to the new rows. */
async function filterToRows(
  browser: Browser,
  server: AnnotaryServer,
  cookie: Cookie,
  projectId: string,
  f: FilterCase,
): Promise<FilterFigures> {
  const context = await signedInContext(browser, cookie);
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}/projects/${projectId}/tasks`);
    const heading = page.locator('#task-list-title');
    await page.waitForFunction(`${TOTAL_SHOWN}()`, undefined, { timeout: 120_000 });
    const before = (await heading.textContent()) ?? '';
    await page.evaluate(LISTEN_CHANGE);
    await page.getByLabel(f.field, { exact: true }).selectOption({ label: f.option });
    const done = await page.waitForFunction(`(${ROWS_CHANGED})(${JSON.stringify(before)})`, undefined, {
      polling: 'raf',
      timeout: 120_000,
    });
    return (await done.jsonValue()) as FilterFigures;
  } finally {
    await context.close();
  }
}

const msText = (v: number) => `${Math.round(v)} ms`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function run(opts: BenchOptions): Promise<Result> {
  const [tasks = 1_000_000] = taskCounts(opts.extra.tasks, [1_000_000]);
  const loads = wholeNumber(opts.extra.loads, 7, 'loads');
  const rounds = wholeNumber(opts.extra.rounds, 5, 'rounds');
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM}: install Debian's chromium`);
  buildConsole();
  const server = await startAnnotary({ engine: opts.engine, runtime: 'built' });
  let browser: Browser | undefined;
  try {
    for (const name of ['Street scenes', 'Night shots', 'Warehouse shelves', 'Receipts', 'Road signs'])
      await server.api('POST', '/project', { name });
    const cookie = await sessionCookie(server);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });

    // (a) and (c)
    await coldLoad(browser, server, cookie); // unmeasured: the server's first answers
    const coldLoads: LoadFigures[] = [];
    for (let i = 0; i < loads; i++) coldLoads.push(await coldLoad(browser, server, cookie));
    const load = summarize(coldLoads.map((l) => l.ms));
    const scripts = coldLoads[0]?.scripts ?? [];
    const jsBytes = scripts.reduce((s, f) => s + f.bytes, 0);
    const jsGzip = scripts.reduce((s, f) => s + f.gzipBytes, 0);
    process.stdout.write(`  /projects cold load: median ${msText(load.p50)}; JavaScript ${kb(jsGzip)} gzipped\n`);
    const step = (pick: (s: LoadSteps) => number | null) =>
      msText(summarize(coldLoads.map((l) => pick(l.steps) ?? NaN)).p50);
    const loadSteps =
      `load steps (median ms since navigation start): shell scripts received ${step((s) => s.shellJs)}, ` +
      `GET /v2/session ${step((s) => s.sessionStart)} to ${step((s) => s.sessionEnd)}, ` +
      `page chunk received ${step((s) => s.pageJs)}, GET /v2/listProjects ${step((s) => s.listStart)} to ${step((s) => s.listEnd)}, ` +
      `list drawn ${msText(load.p50)}`;
    process.stdout.write(`  ${loadSteps}\n`);

    // (b)
    const { projectId, seedSeconds } = await labelledProject(server, tasks);
    process.stdout.write(`  ${num(tasks)} tasks seeded in ${seedSeconds.toFixed(1)} s\n`);
    const filters: { f: FilterCase; samples: number[]; heading: string; parts: FilterFigures[] }[] = [];
    for (const f of FILTERS) {
      const parts: FilterFigures[] = [];
      for (let i = 0; i < rounds; i++) parts.push(await filterToRows(browser, server, cookie, projectId, f));
      const samples = parts.map((p) => p.ms);
      const heading = parts.at(-1)?.heading ?? '';
      filters.push({ f, samples, heading, parts });
      const med = (pick: (p: FilterFigures) => number | null) =>
        msText(summarize(parts.map((p) => pick(p) ?? NaN)).p50);
      process.stdout.write(
        `  ${f.label}: median ${msText(summarize(samples).p50)} (${heading}): before the request ${med((p) => p.beforeRequestMs)}, request ${med((p) => p.requestMs)}, after the answer ${med((p) => p.afterResponseMs)}\n`,
      );
    }
    const worstFilter = Math.max(...filters.map((x) => summarize(x.samples).p50));

    const row = (what: string, s: number[], target: string, extra = '') => {
      const sum = summarize(s);
      return [what, msText(sum.p50), msText(sum.min), msText(sum.max), target, extra];
    };
    return {
      table: {
        columns: ['measure', 'median', 'min', 'max', 'target', 'note'],
        rows: [
          row(
            '/projects first load to list drawn',
            coldLoads.map((l) => l.ms),
            msText(TARGET_LOAD_MS),
            `${loads} cold loads`,
          ),
          ...filters.map((x) =>
            row(
              `task table, filter ${x.f.label}`,
              x.samples,
              msText(TARGET_FILTER_MS),
              `${x.heading} of ${num(tasks)}`,
            ),
          ),
          [
            'first route JavaScript, gzipped',
            kb(jsGzip),
            '',
            '',
            kb(TARGET_JS_BYTES),
            `${kb(jsBytes)} raw, ${scripts.length} files`,
          ],
        ],
      },
      summary:
        `console on ${opts.engine}: /projects to interactive ${msText(load.p50)} (target ${msText(TARGET_LOAD_MS)}), ` +
        `filter to rows at ${num(tasks)} tasks ${msText(worstFilter)} at worst (target ${msText(TARGET_FILTER_MS)}), ` +
        `first route JS ${kb(jsGzip)} gzipped (target ${kb(TARGET_JS_BYTES)})`,
      notes: [
        'built server (node dist/cli/index.js serve), console from dist/web; headless Debian Chromium, 1400x900',
        'contexts bypass the CSP (its no-eval rule stops Playwright polling a condition each frame)',
        'load: fresh browser context per load (empty cache, session cookie set), navigation start to the first frame with the heading and a project row',
        'filter: tasks page opened afresh each round (no cached answers), from the change event of the filter select to the first frame with the new total and rows',
        loadSteps,
        `scripts of the first route: ${scripts.map((s) => `${path.basename(s.url)} ${kb(s.gzipBytes)}`).join(', ')}`,
      ],
      data: {
        tasks,
        seedSeconds,
        loadsMs: coldLoads.map((l) => l.ms),
        loadSteps: coldLoads.map((l) => l.steps),
        scripts,
        jsBytes,
        jsGzipBytes: jsGzip,
        filters: filters.map((x) => ({ filter: x.f.label, samplesMs: x.samples, heading: x.heading, parts: x.parts })),
        postgresVersion: server.schema?.serverVersion ?? null,
      },
    };
  } finally {
    await browser?.close();
    await server.stop();
  }
}

export default defineBenchmark({
  name: 'console',
  description:
    'The console on a built server in headless Chromium: /projects first load to interactive, the task table filter-to-rows time at 1,000,000 tasks, the first route JavaScript gzipped (--tasks, --loads, --rounds)',
  run,
});
