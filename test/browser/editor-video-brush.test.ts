import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { encodeBars } from './helpers/bar-video.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets } from './helpers/editor-assets.js';
import { clickAt, shownAt, signInWithKey, strokeThrough, type Vec } from './helpers/editor-page.js';
import { editorProject, openEditorTask } from './helpers/editor-task.js';

/*
 * The brush on a video's frames, with a real mouse and keyboard on an MP4 ffmpeg makes here:
 * each frame has its own layer. Strokes on frames 1 and 10 (counted from 0) show on their frame
 * only, the eraser and undo act on the frame shown, a draft saves both layers, a reload shows
 * them again from the stored PNGs, and the submit sends only the frame changed since; both
 * layers are read back through the API and their pixels checked, and frame 5 has none.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Frame = { page: number; url: string };
const W = 320;
const H = 240;
const BARS = { width: W, height: H, frames: 20, bits: 8 };
/** The class colour: red, shown at 60 % over the frame's grey lower half. */
const RED = [255, 0, 0, 255];

describe('the brush on video frames', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let page: Page;
  let errors: string[] = [];
  let taskId = '';

  const api = async (method: string, url: string) => {
    const res = await server.call(method, url, {});
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };
  const frameShown = () => page.getByLabel('Frame shown').getAttribute('data-frame').then(Number);
  /** Types the frame (counted from 0) into the Frame input and waits for it to be drawn. */
  const goTo = async (index: number) => {
    const input = page.getByLabel('Frame', { exact: true });
    await input.fill(String(index + 1));
    await input.press('Enter');
    await expect.poll(frameShown).toBe(index);
    // Keys go to the editor again, not to the field.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
  };
  /** Red over the grey floor of the frame (the layer is shown at 60 %). */
  const painted = async (p: Vec) => {
    const [r, g, b] = await shownAt(page, p);
    return r > 170 && g < 100 && b < 100;
  };
  const grey = async (p: Vec) => {
    const c = await shownAt(page, p);
    return c.every((v) => Math.abs(v - 128) <= 12);
  };
  /** Waits for the stored layer of the frame shown to be drawn (it is read when the frame is). */
  const showsPaint = (p: Vec) => expect.poll(() => painted(p), { timeout: 10_000 }).toBe(true);
  const task = async () => (await api('GET', `/v2/task/${taskId}`)).task as Json;
  const layerOf = async (url: string) => {
    const png = PNG.sync.read(Buffer.from(await (await fetch(url)).arrayBuffer()));
    expect([png.width, png.height]).toEqual([W, H]);
    return ([x, y]: Vec) => [...png.data.subarray((y * W + x) * 4, (y * W + x) * 4 + 4)];
  };
  const keyOf = (url: string) => new URL(url).pathname.split('/').slice(-2).join('/');

  beforeAll(async () => {
    const mp4 = encodeBars(BARS, 'bars.mp4', ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-g', '10', '-crf', '12']);
    assets = await serveAssets({ '/clip.mp4': { type: 'video/mp4', body: mp4 } });
    server = await startConsoleServer(engine);
    const labelerKey = await server.addUser('labeler@example.com');
    const project = await editorProject(server, {
      name: 'Fields from the air',
      categorySchema: {
        tools: [{ schemaId: 'crop', title: 'Crop', tool: 'brush', color: '#ff0000', shortcutKey: 'b' }],
        classifications: [],
      },
      assets: [
        {
          data: `${assets.url}/clip.mp4`,
          externalId: 'clip.mp4',
          metadata: { width: W, height: H, frameTotal: BARS.frames, frameRate: 30 },
        },
      ],
    });
    taskId = project.tasks['clip.mp4'] as string;
    browser = await launchBrowser();
    const context = await newContext(browser, server.url);
    page = await context.newPage();
    errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    await openEditorTask(page, server, taskId);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  it('paints each frame on its own layer, erases and undoes on the frame shown, and saves both as a draft', async () => {
    await expect.poll(frameShown, { timeout: 30_000 }).toBe(0);
    await page.getByRole('button', { name: 'Crop tool' }).click();
    await page.getByLabel('Brush size').fill('20');

    // Frame 1: a stroke across the grey floor at y = 180.
    await goTo(1);
    await strokeThrough(page, [
      [40, 180],
      [100, 180],
      [160, 180],
    ]);
    expect(await painted([60, 180])).toBe(true);
    expect(await grey([60, 215])).toBe(true);
    // The eraser (Shift+E) clears a band across it, on this frame.
    await page.keyboard.press('Shift+E');
    await strokeThrough(page, [
      [100, 150],
      [100, 210],
    ]);
    await page.keyboard.press('Shift+E');
    expect(await grey([100, 180])).toBe(true);
    expect(await painted([140, 180])).toBe(true);
    await screenshot(page, 'editor-video-brush-frame-1');

    // Frame 10 shows none of it; its own stroke goes lower, and a second one is undone.
    await goTo(10);
    expect(await grey([60, 180])).toBe(true);
    await strokeThrough(page, [
      [180, 200],
      [280, 200],
    ]);
    await strokeThrough(page, [
      [40, 220],
      [120, 220],
    ]);
    expect(await painted([60, 220])).toBe(true);
    await page.keyboard.press('Control+z');
    expect(await grey([60, 220])).toBe(true);
    expect(await painted([230, 200])).toBe(true);
    await screenshot(page, 'editor-video-brush-frame-10');

    // Frame 5 has nothing; frame 1 still has its stroke, with the band erased, and not frame 10's.
    await goTo(5);
    expect(await grey([60, 180])).toBe(true);
    expect(await grey([230, 200])).toBe(true);
    await goTo(1);
    expect(await painted([60, 180])).toBe(true);
    expect(await grey([100, 180])).toBe(true);
    expect(await grey([230, 200])).toBe(true);

    // Undo on frame 1 brings the erased band back (its own undo, not frame 10's).
    await page.keyboard.press('Control+z');
    expect(await painted([100, 180])).toBe(true);
    await page.keyboard.press('Control+Shift+z');
    expect(await grey([100, 180])).toBe(true);

    await page.getByText(/^Draft saved/).waitFor({ timeout: 30_000 });
    await expect
      .poll(async () => ((await task()).brushFrames as Frame[] | undefined)?.map((f) => f.page))
      .toEqual([1, 10]);
    expect((await task()).isDraft).toBe(true);
    expect(errors).toEqual([]);
  });

  it('shows the stored layers again after a reload, and the submit sends only the frame changed', async () => {
    const draft = (await task()).brushFrames as Frame[];
    await page.reload();
    await expect.poll(frameShown, { timeout: 30_000 }).toBe(0);
    await goTo(10);
    await showsPaint([230, 200]);
    expect(await grey([60, 180])).toBe(true);
    await goTo(1);
    await showsPaint([60, 180]);
    expect(await grey([100, 180])).toBe(true);
    await screenshot(page, 'editor-video-brush-reloaded');

    // The bucket fills a ring drawn on frame 1.
    await page.getByRole('button', { name: 'Crop tool' }).click();
    await page.getByLabel('Brush size').fill('4');
    await strokeThrough(page, [
      [200, 140],
      [260, 140],
      [260, 190],
      [200, 190],
      [200, 140],
    ]);
    await page.getByRole('button', { name: 'Fill' }).click();
    await clickAt(page, [230, 165]);
    expect(await painted([230, 165])).toBe(true);
    await screenshot(page, 'editor-video-brush-filled');

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const done = await task();
    const frames = done.brushFrames as Frame[];
    expect(frames.map((f) => f.page)).toEqual([1, 10]);
    expect(done.brushDataUrl).toBeNull();
    // Frame 10 was not changed after the draft: the same stored file; frame 1 a new one.
    expect(keyOf(frames[1]!.url)).toBe(keyOf(draft[1]!.url));
    expect(keyOf(frames[0]!.url)).not.toBe(keyOf(draft[0]!.url));

    const one = await layerOf(frames[0]!.url);
    for (const p of [
      [45, 180],
      [140, 185],
      [230, 165],
      [200, 160],
    ] as Vec[])
      expect(one(p), String(p)).toEqual(RED);
    for (const p of [
      [100, 180],
      [230, 200],
      [60, 220],
      [10, 10],
    ] as Vec[])
      expect(one(p)[3], String(p)).toBe(0);
    const ten = await layerOf(frames[1]!.url);
    expect(ten([230, 200])).toEqual(RED);
    for (const p of [
      [60, 180],
      [60, 220],
      [230, 165],
    ] as Vec[])
      expect(ten(p)[3], String(p)).toBe(0);
    expect(frames.some((f) => f.page === 5)).toBe(false);
    expect(errors).toEqual([]);
  });
});
