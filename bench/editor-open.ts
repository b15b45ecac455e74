/**
 * The editor's speed in Chromium: how long a task whose answer holds 500 objects on a 4000 x
 * 3000 image takes from navigation to "ready to draw" (the image decoded and every object on the
 * canvas), and the frame times (requestAnimationFrame deltas) while the person pans with the
 * mouse and zooms with the wheel. The goal: ready within 1 s on localhost, smooth
 * frames (16.7 ms at 60 Hz).
 *
 * A built server (`dist/`, with the console built by vite) on the server core; the image is a
 * PNG served from 127.0.0.1 by this process, cached by the browser after a first, unmeasured
 * open (a labeler's browser has it from the previous task's prefetch or the CDN). Each round
 * opens the task in a fresh page of a warm browser: `--rounds N` (default 5), medians kept.
 *
 *   npm run bench -- editor-open [--rounds 5] [--objects 500] [--cpu-profile out.json]
 *
 * `--cpu-profile <file>` (`--profile` is the runner's own flag): one more open under the CDP Profiler; writes the CPU profile (open it in
 * Chromium's DevTools) and a screenshot (`<file>.png`) and prints the functions with the most self time and the requests.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../test/browser/helpers/browser.js';
import { serveAssets, streetPng } from '../test/browser/helpers/editor-assets.js';
import { startAnnotary } from './lib/annotary.js';
import { buildConsole, EDITOR_READY, median, signedInContext, START_FRAMES, STOP_FRAMES } from './lib/chromium.js';
import { ms, num } from './lib/format.js';
import { percentiles } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const WIDTH = 4000;
const HEIGHT = 3000;

/** 500 objects spread over the image: boxes, polygons, polylines and points, as a dense street. */
function denseAnswer(count: number) {
  const tools: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const x = 40 + ((i * 197) % (WIDTH - 300));
    const y = 40 + ((i * 131) % (HEIGHT - 300));
    switch (i % 4) {
      case 0:
        tools.push({ schemaId: 'car', 'bounding-box': { x, y, width: 120 + (i % 90), height: 70 + (i % 50) } });
        break;
      case 1:
        tools.push({
          schemaId: 'lane',
          polygon: [
            [x, y],
            [x + 140, y + 10],
            [x + 160, y + 120],
            [x + 20, y + 140],
            [x - 10, y + 60],
          ],
        });
        break;
      case 2:
        tools.push({
          schemaId: 'curb',
          polyline: [
            [x, y],
            [x + 80, y + 40],
            [x + 160, y + 30],
            [x + 240, y + 90],
          ],
        });
        break;
      default:
        tools.push({ schemaId: 'sign', point: [x + 30, y + 30] });
    }
  }
  return { tools, classifications: [], relations: [] };
}

interface Round {
  readyMs: number;
  frames: number[];
}

/** Opens the task in a new page; answers the ready time and the frame times of a pan and a zoom. */
async function oneRound(page: Page, url: string, objects: number): Promise<Round> {
  await page.goto(url, { waitUntil: 'commit' });
  // Ready to draw: the canvas holds the image and the object list every object.
  const readyMs = (await (
    await page.waitForFunction(`(${EDITOR_READY})(${objects})`, undefined, { polling: 'raf', timeout: 30_000 })
  ).jsonValue()) as number;

  const canvas = page.getByTestId('editor-canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('no canvas');
  await page.evaluate(START_FRAMES);
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  // Pan: drag the empty image (select mode) around, 60 moves.
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  for (let i = 0; i < 60; i++) {
    await page.mouse.move(cx + Math.sin(i / 6) * 200, cy + Math.cos(i / 6) * 120);
  }
  await page.mouse.up();
  // Zoom: 20 wheel notches in, 20 out, about the centre.
  for (let i = 0; i < 40; i++) await page.mouse.wheel(0, i < 20 ? -100 : 100);
  await page.waitForTimeout(100);
  const frames = (await page.evaluate(STOP_FRAMES)) as number[];
  return { readyMs, frames };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** One open under the CDP Profiler: prints where the main thread's time went and the requests. */
async function profileOpen(page: Page, url: string, objects: number, file: string): Promise<void> {
  await page.goto('/work');
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  await page.goto(url, { waitUntil: 'commit' });
  const readyMs = (await (
    await page.waitForFunction(`(${EDITOR_READY})(${objects})`, undefined, { polling: 'raf', timeout: 30_000 })
  ).jsonValue()) as number;
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  };
  fs.writeFileSync(file, JSON.stringify(profile));
  // What a person sees once ready: the image, the objects, the list's first rows.
  await page.screenshot({ path: `${file}.png` });
  const self = new Map<string, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const n = byId.get(id);
    if (!n) return;
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop() ?? ''}:${f.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 25);
  const requests = (await page.evaluate(
    `performance.getEntriesByType('resource').map((e) => [e.name.replace(location.origin, ''), Math.round(e.startTime), Math.round(e.responseEnd)])`,
  )) as [string, number, number][];
  process.stdout.write(`  profiled open: ready at ${Math.round(readyMs)} ms; self time (ms):\n`);
  for (const [k, v] of top) process.stdout.write(`    ${v.toFixed(1).padStart(8)}  ${k}\n`);
  process.stdout.write('  requests (start, end ms):\n');
  for (const [name, a, b] of requests)
    process.stdout.write(`    ${String(a).padStart(6)} ${String(b).padStart(6)}  ${name}\n`);
}

export default defineBenchmark({
  name: 'editor-open',
  description: 'Chromium opens a 4000x3000 image task with 500 objects: time to ready-to-draw, pan and zoom frames',
  async run(opts: BenchOptions): Promise<Result> {
    const rounds = Number(opts.extra.rounds ?? 5);
    const objects = Number(opts.extra.objects ?? 500);
    buildConsole(opts.extra);
    const assets = await serveAssets({ '/street-4000.png': { type: 'image/png', body: streetPng(WIDTH, HEIGHT) } });
    const server = await startAnnotary({ engine: opts.engine, runtime: 'built' });
    const browser = await launchBrowser();
    try {
      const { data } = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', {
        name: 'Editor speed',
      });
      const projectId = data.project._id;
      await server.api('POST', `/project/${projectId}`, {
        categorySchema: {
          tools: [
            { schemaId: 'car', title: 'Car', tool: 'bounding-box' },
            { schemaId: 'lane', title: 'Lane', tool: 'polygon' },
            { schemaId: 'curb', title: 'Curb', tool: 'polyline' },
            { schemaId: 'sign', title: 'Sign', tool: 'point' },
          ],
          classifications: [],
        },
      });
      const imported = await server.api<{ data: { assets: { taskId: string }[] } }>(
        'POST',
        `/project/${projectId}/cloud`,
        { assets: [{ data: `${assets.url}/street-4000.png`, externalId: 'street-4000.png' }] },
      );
      const taskId = imported.data.assets[0]?.taskId ?? '';
      await server.api('POST', `/annotate/${taskId}`, { answer: denseAnswer(objects) });
      // The address the console's own links give (the queue, "next"): the project rides along.
      const taskPath = `/work/tasks/${taskId}?project=${projectId}`;

      const context = await signedInContext(browser, server.url, server.apiKey);
      const signIn = await context.newPage();
      // A first open, not measured: the browser caches the chunks and the image, as after a first task.
      await oneRound(signIn, taskPath, objects);
      await signIn.close();

      const results: Round[] = [];
      const page = await context.newPage();
      const crashed: string[] = [];
      page.on('crash', () => crashed.push('the page crashed'));
      for (let r = 0; r < rounds; r++) {
        // Each round a full navigation: the previous page (and its canvas) is gone.
        await page.goto('/work');
        results.push(await oneRound(page, taskPath, objects));
      }
      if (crashed.length) throw new Error(crashed.join('; '));
      if (typeof opts.extra['cpu-profile'] === 'string')
        await profileOpen(page, taskPath, objects, opts.extra['cpu-profile']);
      await context.close();

      const ready = results.map((r) => r.readyMs);
      const frames = results.flatMap((r) => r.frames);
      const f = percentiles(frames, [50, 95, 100]);
      const under = frames.filter((x) => x <= 17).length / Math.max(1, frames.length);
      const table = {
        columns: ['figure', 'value'],
        rows: [
          ['objects', objects],
          ['image', `${WIDTH} x ${HEIGHT}`],
          ['rounds', rounds],
          ['ready to draw, median', ms(median(ready))],
          ['ready to draw, worst', ms(Math.max(...ready))],
          ['frames measured', frames.length],
          ['frame p50', ms(f.p50 ?? Number.NaN)],
          ['frame p95', ms(f.p95 ?? Number.NaN)],
          ['frame max', ms(f.p100 ?? Number.NaN)],
          ['frames within 17 ms', `${num(under * 100, 1)} %`],
        ] as (string | number)[][],
      };
      return {
        table,
        summary: `ready in ${ms(median(ready))} (median of ${rounds}); pan/zoom frames p50 ${ms(f.p50 ?? NaN)}, p95 ${ms(f.p95 ?? NaN)}, max ${ms(f.p100 ?? NaN)}`,
        data: { objects, width: WIDTH, height: HEIGHT, ready, frames: { ...f, count: frames.length, under17: under } },
        notes: [
          'Headless Chromium with --disable-gpu: the canvas is rasterised on the CPU, on a machine other work shares.',
        ],
      };
    } finally {
      await browser.close();
      await server.stop();
      await assets.close();
    }
  },
});
