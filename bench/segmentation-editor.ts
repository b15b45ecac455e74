/**
 * The segmentation and brush tools in Chromium on a 4000 x 3000 image, each figure set against a
 * baseline measured in the same run and the same browser:
 *
 *   stroke      a brush stroke's pointer event to its paint on the canvas, p95        <= 16 ms
 *               (baseline: a bare page whose canvas draws a dot on each move)
 *   undo        Ctrl+Z's key event to the stroke gone from the canvas, p95             <= 16 ms
 *               (baseline: the bare page putting back a saved patch on the key)
 *   save        the brush layer's PNG encode (the editor's own canvas.toBlob, when the
 *               draft is saved)                                                       <= 150 ms
 *               (baseline: an empty 4000 x 3000 canvas encoded in the bare page)
 *   trace       a ring painted in the segmentation Paint mode: the mouse-up to its
 *               zones drawn and listed                                                <= 100 ms
 *               (baseline: reading the same ring's pixels into a mask, in the bare page)
 *   open        an image with 2,000 segmentation objects to ready to draw            <= 1.5 s
 *   pan         frame times while the middle button drags the view, p95               <= 33 ms
 *               (baseline for both: the same image with no objects)
 *
 * "On the canvas" is measured in the page: a listener on window (it runs after the editor's,
 * which is on the canvas or registered first) asks for an animation frame; konva's draw asked for
 * its frame earlier, so it has drawn when ours runs, and ours then reads one pixel of the stage's
 * canvas under the pointer, which makes Chromium execute every drawing call still pending. The
 * time is performance.now() there minus the event's timeStamp (when the browser made the event),
 * so the wait for the frame and any queued work are in it. The pixel read is kept with each
 * sample and counted: a stroke sample whose pixel is not the brush's colour did not measure a
 * paint.
 *
 * A built server (`dist/`, the console built by vite); the image is served from 127.0.0.1 and
 * cached by the browser after a first, unmeasured open.
 *
 *   npm run bench -- segmentation-editor [--rounds 3] [--objects 2000] [--strokes 4] [--skip-build]
 */
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { launchBrowser } from '../test/browser/helpers/browser.js';
import { serveAssets, streetPng } from '../test/browser/helpers/editor-assets.js';
import { zonesArea } from '../test/helpers/rings.js';
import { startAnnotary } from './lib/annotary.js';
import { buildConsole, EDITOR_READY, median, signedInContext, START_FRAMES, STOP_FRAMES } from './lib/chromium.js';
import { ms, num } from './lib/format.js';
import { wholeNumber } from './lib/labelled-project.js';
import { percentiles } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const WIDTH = 4000;
const HEIGHT = 3000;
type Vec = [number, number];

/** 2,000 segmentation objects in a grid of cells 80 x 75 px: wobbly discs, every third with a hole. */
function segmentationAnswer(count: number) {
  const cols = Math.floor(WIDTH / 80);
  const round = (v: number) => Math.round(v * 100) / 100;
  const ring = (cx: number, cy: number, r: (a: number) => number, n: number): Vec[] =>
    Array.from({ length: n }, (_, k) => {
      const a = (2 * Math.PI * k) / n;
      return [round(cx + r(a) * Math.cos(a)), round(cy + r(a) * Math.sin(a))];
    });
  const tools = Array.from({ length: count }, (_, i) => {
    const cx = 40 + (i % cols) * 80;
    const cy = 37 + Math.floor(i / cols) * 75;
    const region = ring(cx, cy, (a) => 30 + 5 * Math.sin(5 * a + i), 16);
    const holes = i % 3 === 0 ? [ring(cx, cy, () => 10, 8)] : [];
    return { schemaId: i % 2 ? 'tree' : 'field', segmentation: { zones: [{ region, holes }] } };
  });
  return { tools, classifications: [], relations: [] };
}

// Page functions as text: they run in the browser, whose DOM this file's types do not know.

/**
 * The probe: samples [kind, ms] of event-to-canvas times. After a mouse move with the primary
 * button held or a key (while `window.probe_.keys` is on), the next animation frame snapshots
 * the canvas (createImageBitmap: Chromium rasters every drawing call still pending) and keeps
 * the time since the event. A change of the object list's heading (the trace's zones committed)
 * does the same, timed from the last mouse-up. (The stage's canvas cannot be read back: it holds
 * an image of another origin.)
 */
const PROBE = `(selector) => {
  const out = (window.probe_ = { samples: [], keys: false, up: 0 });
  const sample = (kind, since) =>
    requestAnimationFrame(() => {
      createImageBitmap(document.querySelector(selector)).then((b) => b.close());
      out.samples.push([kind, performance.now() - since]);
    });
  addEventListener('mousemove', (e) => {
    if (e.buttons & 1) sample('move', e.timeStamp);
  });
  addEventListener('keydown', (e) => {
    if (out.keys && e.key === 'z') sample('key', e.timeStamp);
  });
  addEventListener('mouseup', (e) => {
    out.up = e.timeStamp;
  });
  const heading = document.getElementById('objects-title');
  if (heading)
    new MutationObserver(() => sample('objects', out.up)).observe(heading, {
      childList: true,
      subtree: true,
      characterData: true,
    });
}`;

/**
 * Every canvas.toBlob of the page timed from its call to its callback, with the canvas's size
 * and the blob's bytes; the last 4000 x 3000 canvas encoded is kept as window.layer_.
 */
const TIME_ENCODES = `(() => {
  window.encodes_ = [];
  const toBlob = HTMLCanvasElement.prototype.toBlob;
  HTMLCanvasElement.prototype.toBlob = function (done, ...rest) {
    const started = performance.now();
    const canvas = this;
    return toBlob.call(
      this,
      (blob) => {
        window.encodes_.push({ ms: performance.now() - started, width: canvas.width, height: canvas.height, bytes: blob ? blob.size : 0 });
        if (canvas.width === ${WIDTH} && canvas.height === ${HEIGHT}) window.layer_ = canvas;
        done(blob);
      },
      ...rest,
    );
  };
})()`;

/** The bare page of the baselines: a canvas the editor's size, a dot drawn on each move, Ctrl+Z puts a patch back. */
const BARE_PAGE = `<!doctype html><html><body style="margin:0">
<canvas id="bare" width="1400" height="900" style="display:block"></canvas>
<script>
  const c = document.getElementById('bare');
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#96bee6';
  ctx.fillRect(0, 0, c.width, c.height);
  let patch = null;
  addEventListener('mousedown', (e) => {
    patch = [ctx.getImageData(e.clientX - 64, e.clientY - 64, 128, 128), e.clientX - 64, e.clientY - 64];
  });
  c.addEventListener('mousemove', (e) => {
    if (!(e.buttons & 1)) return;
    ctx.fillStyle = '#ff0000';
    ctx.beginPath();
    ctx.arc(e.clientX, e.clientY, 8, 0, 2 * Math.PI);
    ctx.fill();
  });
  addEventListener('keydown', (e) => {
    if (e.key === 'z' && e.ctrlKey && patch) ctx.putImageData(patch[0], patch[1], patch[2]);
  });
</script></body></html>`;

/** In the bare page: an empty 4000 x 3000 canvas's PNG encode (ms). */
const EMPTY_ENCODE = `new Promise((resolve) => {
  const c = document.createElement('canvas');
  c.width = ${WIDTH};
  c.height = ${HEIGHT};
  c.getContext('2d');
  const started = performance.now();
  c.toBlob(() => resolve(performance.now() - started), 'image/png');
})`;

/** The editor's layer encoded again (ms, bytes): the draft's encode repeated on the same pixels. */
const LAYER_ENCODE = `new Promise((resolve) => {
  const started = performance.now();
  window.layer_.toBlob((b) => resolve([performance.now() - started, b.size]), 'image/png');
})`;

/** In the bare page: the trace's ring drawn on a 4000 x 3000 canvas, then read into a 0/1 mask (ms). */
const READ_MASK = `([cx, cy, r, w]) => {
  const c = document.createElement('canvas');
  c.width = ${WIDTH};
  c.height = ${HEIGHT};
  const ctx = c.getContext('2d', { willReadFrequently: true });
  ctx.lineWidth = w;
  ctx.beginPath();
  ctx.arc(cx, cy, r, 0, 2 * Math.PI);
  ctx.stroke();
  const started = performance.now();
  const data = ctx.getImageData(0, 0, c.width, c.height).data;
  const mask = new Uint8Array(c.width * c.height);
  for (let i = 0; i < mask.length; i++) mask[i] = data[i * 4 + 3] ? 1 : 0;
  return performance.now() - started;
}`;

type Sample = [kind: string, ms: number];

/** Whether the screen shows the brush's red (at 60 % over the sky or the road) at an image pixel. */
async function paintedAt(page: Page, p: Vec): Promise<boolean> {
  // (test/browser's shownAt waits with vitest's expect.poll, which runs only under vitest.)
  const [x, y] = (await viewOf(page)).screen(p);
  const shot = PNG.sync.read(
    await page.screenshot({ clip: { x: Math.round(x), y: Math.round(y), width: 1, height: 1 } }),
  );
  return shot.data[0]! > 170 && shot.data[1]! < 120;
}

async function samples(page: Page, kind: string): Promise<Sample[]> {
  return ((await page.evaluate('window.probe_.samples')) as Sample[]).filter((s) => s[0] === kind);
}

/** Waits until the probe holds `n` samples of `kind` (each waits for its frame). */
async function waitSamples(page: Page, kind: string, n: number): Promise<void> {
  await page.waitForFunction(`window.probe_.samples.filter((s) => s[0] === '${kind}').length >= ${n}`, undefined, {
    polling: 100,
    timeout: 30_000,
  });
}

interface View {
  screen(p: Vec): Vec;
}

async function viewOf(page: Page): Promise<View> {
  const canvas = page.getByTestId('editor-canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('no canvas');
  const read = async (name: string) => Number(await canvas.getAttribute(name));
  const [scale, ox, oy] = [await read('data-scale'), await read('data-offset-x'), await read('data-offset-y')];
  return { screen: ([x, y]) => [box.x + ox + x * scale, box.y + oy + y * scale] };
}

/** A stroke through image pixels, `steps` mouse moves between each two points. */
async function stroke(page: Page, view: View, points: Vec[], steps: number): Promise<void> {
  const [first, ...rest] = points.map((p) => view.screen(p));
  await page.mouse.move(first![0], first![1]);
  await page.mouse.down();
  for (const [x, y] of rest) await page.mouse.move(x, y, { steps });
  await page.mouse.up();
}

/** The image rows the strokes start at: across the sky and the road, clear of the dark block at the top left. */
const strokeRows = (n: number) => Array.from({ length: n }, (_, k) => 500 + (k * 2200) / Math.max(1, n - 1));

/** One brush stroke of 60 moves from (600, y) down to (2000, y + 150) and back up to (3600, y). */
const strokeAt = (page: Page, view: View, y: number) =>
  stroke(
    page,
    view,
    [
      [600, y],
      [2000, y + 150],
      [3600, y],
    ],
    30,
  );

/** Image points on a circle, closed. */
const circle = (cx: number, cy: number, r: number, n: number): Vec[] =>
  Array.from({ length: n + 1 }, (_, k) => [
    cx + r * Math.cos((2 * Math.PI * k) / n),
    cy + r * Math.sin((2 * Math.PI * k) / n),
  ]);

/** Opens a task and answers performance.now() when it is ready to draw with `objects` listed. */
async function open(page: Page, url: string, objects: number): Promise<number> {
  await page.goto('/work');
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(`(${EDITOR_READY})(${objects})`, undefined, {
    polling: 'raf',
    timeout: 60_000,
  });
  return (await handle.jsonValue()) as number;
}

/** Frame times while the middle button drags the view round in 60 moves. */
async function pan(page: Page): Promise<number[]> {
  const box = await page.getByTestId('editor-canvas').boundingBox();
  if (!box) throw new Error('no canvas');
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  await page.mouse.move(cx, cy);
  await page.evaluate(START_FRAMES);
  await page.mouse.down({ button: 'middle' });
  for (let i = 0; i < 60; i++) await page.mouse.move(cx + Math.sin(i / 6) * 200, cy + Math.cos(i / 6) * 120);
  await page.mouse.up({ button: 'middle' });
  await page.waitForTimeout(100);
  return (await page.evaluate(STOP_FRAMES)) as number[];
}

/** Keys typed into a field are the field's: a middle click on the canvas's corner (a pan of nothing) leaves it. */
async function leaveField(page: Page): Promise<void> {
  await page.getByTestId('editor-canvas').click({ position: { x: 5, y: 5 }, button: 'middle' });
}

interface Painting {
  moves: Sample[];
  /** Strokes whose middle the screen showed painted, and then not after their undo. */
  shown: number;
  undos: Sample[];
  undone: number;
  encodes: { ms: number; width: number; height: number; bytes: number }[];
  reencode: number[];
  layerBytes: number;
  trace: Sample[];
}

/** Brush strokes, their undos, the draft's encode and a traced ring, on the task with no objects. */
async function paintAndTrace(page: Page, url: string, strokes: number): Promise<Painting> {
  await open(page, url, 0);
  await page.evaluate(`(${PROBE})('[data-testid="editor-canvas"] canvas')`);
  await page.getByRole('button', { name: 'Crop tool' }).click();
  await page.getByLabel('Brush size').fill('60');
  await leaveField(page);
  let view = await viewOf(page);
  const rows = strokeRows(strokes);
  for (const y of rows) await strokeAt(page, view, y);
  await page.waitForTimeout(200);

  // The draft's save encodes the layer (2 s after the first change); then it is encoded again.
  await page.waitForFunction(`window.encodes_.some((e) => e.width === ${WIDTH})`, undefined, { timeout: 60_000 });
  const reencode: number[] = [];
  let layerBytes = 0;
  for (let i = 0; i < 3; i++) {
    const [t, bytes] = (await page.evaluate(LAYER_ENCODE)) as [number, number];
    reencode.push(t);
    layerBytes = bytes;
  }

  // Each stroke's middle is shown painted; undo each, the last first, and it is gone.
  const middles = rows.map((y): Vec => [2000, y + 150]);
  let shown = 0;
  for (const p of middles) if (await paintedAt(page, p)) shown++;
  await page.evaluate('window.probe_.keys = true');
  let undone = 0;
  for (let k = strokes - 1; k >= 0; k--) {
    const before = (await samples(page, 'key')).length;
    await page.keyboard.press('Control+z');
    await waitSamples(page, 'key', before + 1);
    if (!(await paintedAt(page, middles[k]!))) undone++;
  }
  await page.evaluate('window.probe_.keys = false');

  // A ring painted in the segmentation Paint mode, traced into one object with a hole.
  await page.getByRole('button', { name: 'Field tool' }).click();
  await page.getByRole('button', { name: 'Paint', exact: true }).click();
  await page.getByLabel('Brush size').fill(String(RING.width));
  await leaveField(page);
  view = await viewOf(page);
  await stroke(page, view, circle(RING.cx, RING.cy, RING.r, 48), 2);
  await waitSamples(page, 'objects', 1);
  return {
    moves: await samples(page, 'move'),
    shown,
    undos: await samples(page, 'key'),
    undone,
    encodes: (await page.evaluate('window.encodes_')) as Painting['encodes'],
    reencode,
    layerBytes,
    trace: await samples(page, 'objects'),
  };
}

/** The ring traced: centre, radius and brush width in image pixels. */
const RING = { cx: 2000, cy: 1500, r: 900, width: 300 };

interface Bare {
  moves: Sample[];
  undos: Sample[];
  emptyEncode: number[];
  readMask: number[];
}

/** The baselines in a bare page of the same browser. */
async function bareBaselines(browser: Browser, strokes: number): Promise<Bare> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.setContent(BARE_PAGE);
  await page.evaluate(`(${PROBE})('#bare')`);
  const view: View = { screen: ([x, y]) => [x / 4, y / 4] };
  for (const y of strokeRows(strokes)) {
    await strokeAt(page, view, y);
    await page.evaluate('window.probe_.keys = true');
    const before = (await samples(page, 'key')).length;
    await page.keyboard.press('Control+z');
    await waitSamples(page, 'key', before + 1);
    await page.evaluate('window.probe_.keys = false');
  }
  const emptyEncode: number[] = [];
  const readMask: number[] = [];
  for (let i = 0; i < 3; i++) {
    emptyEncode.push((await page.evaluate(EMPTY_ENCODE)) as number);
    readMask.push(
      (await page.evaluate(`(${READ_MASK})([${RING.cx}, ${RING.cy}, ${RING.r}, ${RING.width}])`)) as number,
    );
  }
  const result = { moves: await samples(page, 'move'), undos: await samples(page, 'key'), emptyEncode, readMask };
  await context.close();
  return result;
}

const p95 = (xs: number[]) => percentiles(xs, [95]).p95 ?? Number.NaN;
const verdict = (value: number, goal: number) => (value <= goal ? 'met' : 'missed');

export default defineBenchmark({
  name: 'segmentation-editor',
  description:
    'Chromium on a 4000x3000 image: brush pointer-to-paint, undo, layer PNG encode, paint-then-trace, 2,000 segmentation objects open and pan',
  async run(opts: BenchOptions): Promise<Result> {
    const rounds = wholeNumber(opts.extra.rounds, 3, 'rounds');
    const objects = wholeNumber(opts.extra.objects, 2000, 'objects');
    const strokes = wholeNumber(opts.extra.strokes, 4, 'strokes');
    buildConsole(opts.extra);
    const png = streetPng(WIDTH, HEIGHT);
    const assets = await serveAssets({
      '/paint.png': { type: 'image/png', body: png },
      '/objects.png': { type: 'image/png', body: png },
      '/plain.png': { type: 'image/png', body: png },
    });
    // --skip-build: dist/ (the server) is the code's too.
    const skip = opts.extra['skip-build'] !== undefined;
    const server = await startAnnotary({
      engine: opts.engine,
      runtime: 'built',
      ...(skip ? { builtEntry: 'dist/cli/index.js' } : {}),
    });
    const browser = await launchBrowser();
    try {
      const { data } = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', {
        name: 'Segmentation speed',
      });
      const projectId = data.project._id;
      await server.api('POST', `/project/${projectId}`, {
        categorySchema: {
          tools: [
            { schemaId: 'crop', title: 'Crop', tool: 'brush', color: '#ff0000' },
            { schemaId: 'field', title: 'Field', tool: 'segmentation', color: '#00a000', multiple: true },
            { schemaId: 'tree', title: 'Tree', tool: 'segmentation', color: '#0050ff', multiple: true },
          ],
          classifications: [],
        },
      });
      const imported = await server.api<{ data: { assets: { taskId: string }[] } }>(
        'POST',
        `/project/${projectId}/cloud`,
        {
          assets: ['paint', 'objects', 'plain'].map((name) => ({
            data: `${assets.url}/${name}.png`,
            externalId: `${name}.png`,
          })),
        },
      );
      const [paintTask, objectsTask, plainTask] = imported.data.assets.map((a) => a.taskId);
      await server.api('POST', `/annotate/${objectsTask}`, { answer: segmentationAnswer(objects) });
      const urlOf = (taskId: string | undefined) => `/work/tasks/${taskId}?project=${projectId}`;

      const context = await signedInContext(browser, server.url, server.apiKey);
      await context.addInitScript(TIME_ENCODES);
      const page = await context.newPage();
      const crashed: string[] = [];
      page.on('crash', () => crashed.push('the page crashed'));
      page.on('pageerror', (err) => {
        crashed.push(err.message);
        process.stderr.write(`  page error: ${err.message}\n`);
      });
      // First opens, not measured: the browser caches the chunks and the images.
      await open(page, urlOf(plainTask), 0);
      await open(page, urlOf(objectsTask), objects);

      // Open and pan, alternated: the image alone, then with the objects.
      const ready = { plain: [] as number[], objects: [] as number[] };
      const frames = { plain: [] as number[], objects: [] as number[] };
      for (let r = 0; r < rounds; r++) {
        ready.plain.push(await open(page, urlOf(plainTask), 0));
        frames.plain.push(...(await pan(page)));
        ready.objects.push(await open(page, urlOf(objectsTask), objects));
        frames.objects.push(...(await pan(page)));
      }

      const painting = await paintAndTrace(page, urlOf(paintTask), strokes);
      // The traced object's draft is saved 2 s later: the zones as the server keeps them.
      type Zones = { region: number[][]; holes: number[][][] }[];
      const storedZones = async () =>
        (
          await server.api<{ data: { task: { answer?: { tools?: { segmentation?: { zones: Zones } }[] } } } }>(
            'GET',
            `/task/${paintTask}`,
          )
        ).data.task.answer?.tools?.[0]?.segmentation?.zones;
      let zones = await storedZones();
      for (let i = 0; !zones && i < 60; i++) {
        await page.waitForTimeout(1000);
        zones = await storedZones();
      }
      if (!zones) throw new Error('the traced object was not saved with the draft');
      if (crashed.length) throw new Error(crashed.join('; '));
      await context.close();
      const bare = await bareBaselines(browser, strokes);

      // The ring the brush swept: between r - w/2 and r + w/2 (its 48 chords make it a little less).
      const ringArea = Math.PI * ((RING.r + RING.width / 2) ** 2 - (RING.r - RING.width / 2) ** 2);
      const traced = {
        zones: zones.length,
        holes: zones.reduce((n, z) => n + z.holes.length, 0),
        vertices: zones.reduce((n, z) => n + z.region.length + z.holes.reduce((m, h) => m + h.length, 0), 0),
        areaOfRing: zonesArea(zones) / ringArea,
      };

      const moveMs = painting.moves.map((s) => s[1]);
      const undoMs = painting.undos.map((s) => s[1]);
      const layerEncodes = painting.encodes.filter((e) => e.width === WIDTH && e.height === HEIGHT);
      const draftEncode = layerEncodes[0]?.ms ?? Number.NaN;
      const encodeMs = median(painting.reencode);
      const traceMs = painting.trace[0]?.[1] ?? Number.NaN;
      const openMs = median(ready.objects);
      const panP95 = p95(frames.objects);
      const bareMove = p95(bare.moves.map((s) => s[1]));
      const bareUndo = p95(bare.undos.map((s) => s[1]));
      const emptyEncode = median(bare.emptyEncode);
      const readMask = median(bare.readMask);
      const moveP95 = p95(moveMs);
      const undoP95 = p95(undoMs);
      const plainOpen = median(ready.plain);
      const plainPan = p95(frames.plain);
      const ratio = (a: number, b: number) => `${num(a / b, 2)}x`;
      const rows: (string | number)[][] = [
        [
          'brush stroke, pointer to paint, p95',
          ms(moveP95),
          ms(bareMove),
          ratio(moveP95, bareMove),
          '16 ms',
          verdict(moveP95, 16),
        ],
        [
          'undo of a stroke, key to canvas, p95',
          ms(undoP95),
          ms(bareUndo),
          ratio(undoP95, bareUndo),
          '16 ms',
          verdict(undoP95, 16),
        ],
        [
          'brush layer PNG encode (median of 3)',
          ms(encodeMs),
          ms(emptyEncode),
          ratio(encodeMs, emptyEncode),
          '150 ms',
          verdict(encodeMs, 150),
        ],
        ["  the draft save's own encode", ms(draftEncode), '', '', '150 ms', verdict(draftEncode, 150)],
        [
          'paint-then-trace, mouse-up to zones drawn',
          ms(traceMs),
          ms(readMask),
          ratio(traceMs, readMask),
          '100 ms',
          verdict(traceMs, 100),
        ],
        [
          `${objects} segmentation objects, ready to draw (median)`,
          ms(openMs),
          ms(plainOpen),
          ratio(openMs, plainOpen),
          '1.5 s',
          verdict(openMs, 1500),
        ],
        ['pan with them, frame p95', ms(panP95), ms(plainPan), ratio(panP95, plainPan), '33 ms', verdict(panP95, 33)],
      ];
      return {
        table: { columns: ['measure', 'figure', 'baseline', 'x baseline', 'goal', ''], rows },
        summary:
          `stroke p95 ${ms(moveP95)} (bare ${ms(bareMove)}), undo p95 ${ms(undoP95)}, encode ${ms(encodeMs)}, ` +
          `trace ${ms(traceMs)}, open ${ms(openMs)} (plain ${ms(plainOpen)}), pan p95 ${ms(panP95)} (plain ${ms(plainPan)})`,
        data: {
          objects,
          rounds,
          strokes,
          moves: { ...percentiles(moveMs, [50, 95, 100]), count: moveMs.length, strokesShown: painting.shown },
          undos: { ...percentiles(undoMs, [50, 95, 100]), count: undoMs.length, undone: painting.undone },
          encodes: painting.encodes,
          reencode: painting.reencode,
          layerBytes: painting.layerBytes,
          trace: painting.trace,
          traced,
          ready,
          frames: {
            plain: { ...percentiles(frames.plain, [50, 95, 100]), count: frames.plain.length },
            objects: { ...percentiles(frames.objects, [50, 95, 100]), count: frames.objects.length },
          },
          bare,
        },
        notes: [
          `stroke samples ${moveMs.length}, p50 ${ms(percentiles(moveMs, [50]).p50!)}, max ${ms(Math.max(...moveMs))}; ` +
            `${painting.shown} of ${strokes} strokes shown painted on the screen, ${painting.undone} gone after their undo`,
          `undo p50 ${ms(percentiles(undoMs, [50]).p50!)}; layer PNG ${num(painting.layerBytes / 1024, 1)} KiB; ` +
            `draft encodes ${painting.encodes.map((e) => ms(e.ms)).join(', ')}`,
          `traced ring stored as ${traced.zones} zone(s), ${traced.holes} hole(s), ` +
            `${traced.vertices} vertices, area ${num(traced.areaOfRing * 100, 1)} % of the swept ring`,
          `open rounds ${ready.objects.map((x) => ms(x)).join(', ')} (plain ${ready.plain.map((x) => ms(x)).join(', ')})`,
          'Headless Chromium with --disable-gpu (the canvas rasterised on the CPU), on a machine other work shares.',
        ],
      };
    } finally {
      await browser.close();
      await server.stop();
      await assets.close();
    }
  },
});
