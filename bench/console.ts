/**
 * The console in Chromium against a built server (`node dist/cli/index.js serve`, console built
 * by vite): (1) the first load of /projects in a fresh browser profile (no cache), from
 * navigation to the project list drawn and usable, `--loads` times (default 7), and the
 * JavaScript that load fetched, gzipped; (2) on a project of `--tasks` labelled tasks (default
 * 1,000,000, seeded straight into the store), the Tasks page's filter-to-rows time: from
 * choosing a filter to the table drawing that filter's rows, `--filters` times (default 10),
 * alternating between stage, status and batch filters. Targets (issue 15): first load 1 s,
 * filter to rows 300 ms, first route's JavaScript 300 KB gzipped.
 *
 *   npm run bench -- console [--engine sqlite|postgres] [--tasks 1000000] [--loads 7] [--filters 10]
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newContext } from '../test/browser/helpers/browser.js';
import { REPO_ROOT, startAnnotary } from './lib/annotary.js';
import { num } from './lib/format.js';
import { labelledProject } from './lib/labelled-project.js';
import { summarize } from './lib/stats.js';
import { defineBenchmark, type Result } from './lib/types.js';

const TARGET = { loadMs: 1000, filterMs: 300, firstRouteKb: 300 };

function count(raw: string | undefined, fallback: number, flag: string): number {
  const n = raw === undefined ? fallback : Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} must be a whole number >= 1, got ${raw}`);
  return n;
}

async function signedInPage(browser: Browser, url: string, apiKey: string): Promise<Page> {
  const context = await newContext(browser, url);
  const res = await context.request.post('/v2/session', { data: { apiKey } });
  if (!res.ok()) throw new Error(`sign-in answered ${res.status()}`);
  return context.newPage();
}

/** One cold load: ms from navigation to the list drawn, and the gzipped bytes of its scripts. */
async function firstLoad(browser: Browser, url: string, apiKey: string) {
  const page = await signedInPage(browser, url, apiKey);
  const scripts: Promise<number>[] = [];
  page.on('response', (r) => {
    if (r.request().resourceType() === 'script') scripts.push(r.body().then((b) => gzipSync(b).length));
  });
  await page.goto('/projects', { waitUntil: 'commit' });
  await page.getByRole('link', { name: /^Labelled / }).waitFor();
  // Navigation start is the page's time origin: now() is the time since it.
  const ms = await page.evaluate(() => performance.now());
  const bytes = (await Promise.all(scripts)).reduce((a, b) => a + b, 0);
  await page.context().close();
  return { ms, bytes };
}

/** Filter-to-rows: choose a filter, wait for the heading to give its total and the first row. */
async function filterTimes(browser: Browser, url: string, apiKey: string, projectId: string, rounds: number) {
  const page = await signedInPage(browser, url, apiKey);
  await page.goto(`/projects/${projectId}/tasks`);
  await page.getByRole('table', { name: 'Tasks' }).waitFor({ timeout: 120_000 });
  const choices: [string, string][] = [
    ['Stage', 'Label'],
    ['Stage', 'Complete'],
    ['Status', 'Completed'],
    ['Stage', 'Any stage'],
    ['Batch', 'January'],
    ['Batch', 'Any batch'],
  ];
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const [label, option] = choices[i % choices.length] ?? ['Stage', 'Label'];
    const before = await page.getByRole('heading', { level: 2 }).first().textContent();
    const start = await page.evaluate(() => performance.now());
    await page.getByLabel(label, { exact: true }).selectOption({ label: option });
    await page.waitForFunction(
      `(() => { const h = document.querySelector('#task-list-title')?.textContent ?? '';
        return h !== ${JSON.stringify(before)} && !h.includes('updating') &&
          !!document.querySelector('table[aria-label="Tasks"] tbody tr'); })()`,
      undefined,
      { timeout: 120_000 },
    );
    samples.push((await page.evaluate(() => performance.now())) - start);
    // Each filter's own figure: the previous filter's page must not be the one measured.
    await page.getByLabel(label, { exact: true }).selectOption({ index: 0 });
    await page.waitForFunction(`!document.querySelector('#task-list-title')?.textContent?.includes('updating')`);
  }
  await page.context().close();
  return samples;
}

export default defineBenchmark({
  name: 'console',
  description:
    'the console in Chromium on a built server: first load of /projects, and the task table filter-to-rows at 1,000,000 tasks',
  async run(opts): Promise<Result> {
    const tasks = count(opts.extra.tasks, 1_000_000, 'tasks');
    const loads = count(opts.extra.loads, 7, 'loads');
    const rounds = count(opts.extra.filters, 10, 'filters');
    execFileSync(
      process.execPath,
      [
        path.join(REPO_ROOT, 'node_modules/vite/bin/vite.js'),
        'build',
        '--config',
        'web/vite.config.ts',
        '--logLevel',
        'warn',
      ],
      {
        cwd: REPO_ROOT,
        stdio: 'inherit',
      },
    );
    const server = await startAnnotary({ engine: opts.engine, runtime: 'built' });
    const browser = await launchBrowser();
    try {
      const { projectId, seedSeconds } = await labelledProject(server, tasks);
      const first = [];
      for (let i = 0; i < loads; i++) first.push(await firstLoad(browser, server.url, server.apiKey));
      const load = summarize(first.map((f) => f.ms));
      const kb = Math.max(...first.map((f) => f.bytes)) / 1024;
      const filter = summarize(await filterTimes(browser, server.url, server.apiKey, projectId, rounds));
      const ok = (v: number, target: number) => (v <= target ? 'met' : 'missed');
      return {
        table: {
          columns: ['measure', 'median', 'p90', 'target', ''],
          rows: [
            ['first load of /projects (ms)', num(load.p50), num(load.p90), TARGET.loadMs, ok(load.p50, TARGET.loadMs)],
            [
              `filter to rows at ${num(tasks)} tasks (ms)`,
              num(filter.p50),
              num(filter.p90),
              TARGET.filterMs,
              ok(filter.p50, TARGET.filterMs),
            ],
            [
              'JavaScript of the first load (KB gzipped)',
              num(kb),
              '',
              TARGET.firstRouteKb,
              ok(kb, TARGET.firstRouteKb),
            ],
          ],
        },
        summary: `first load ${num(load.p50)} ms, filter to rows ${num(filter.p50)} ms at ${num(tasks)} tasks, ${num(kb)} KB of JS gzipped`,
        data: { tasks, seedSeconds, load, filter, firstLoads: first, jsKbGzipped: kb },
        notes: [
          'Chromium headless on the same machine as the server (2 cores): the browser and the server share them.',
        ],
      };
    } finally {
      await browser.close();
      await server.stop();
    }
  },
});
