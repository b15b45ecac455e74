import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { callApi } from './helpers/api.js';
import { encodeBars, shownIndex } from './helpers/bar-video.js';
import { type RangeServer, rangeServer } from './helpers/range-server.js';
import { signInWithKey } from './helpers/editor-page.js';

/*
 * The player reads a video by byte ranges: on a 127.0.0.1 server that answers ranges (and logs
 * every request the browser makes), the first frame is shown after the index and the first
 * groups of pictures are read, far from the whole file, whether the MP4's index comes first
 * (faststart) or after its media data; a jump near the end reads the bytes there and lands on
 * the exact frame. A server that answers no ranges (200 and the whole body) still plays. A
 * browser without WebCodecs gets the browser's own player, said to be approximate to the frame.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
// 300 frames at 30 fps, a keyframe every 30: ten groups of pictures; noise makes each weigh.
const BARS = { width: 320, height: 240, frames: 300, bits: 10, noise: true };
const H264 = ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-g', '30', '-bf', '2', '-crf', '18'];

describe('the video player reads by ranges', () => {
  let server: ConsoleServer;
  let files: RangeServer;
  let browser: Browser;
  let context: BrowserContext;
  let labelerKey = '';
  let projectId = '';
  const sizes: Record<string, number> = {};
  const tasks: Record<string, string> = {};

  const api = async (method: string, url: string, body?: unknown) => {
    const { status, data, body: sent } = await callApi(server, method, url, body);
    expect(status, JSON.stringify(sent)).toBeLessThan(300);
    return data as Json;
  };

  beforeAll(async () => {
    const fast = encodeBars(BARS, 'fast.mp4', [...H264, '-movflags', '+faststart']);
    const late = encodeBars(BARS, 'late.mp4', H264);
    // The index after the media data: a faststart file has 'moov' before 'mdat'.
    expect(fast.indexOf('moov')).toBeLessThan(fast.indexOf('mdat'));
    expect(late.indexOf('moov')).toBeGreaterThan(late.indexOf('mdat'));
    sizes['/fast.mp4'] = fast.length;
    sizes['/late.mp4'] = late.length;
    files = await rangeServer({ '/fast.mp4': fast, '/late.mp4': late });
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('labeler@example.com');
    const id = ((await api('POST', '/v2/project', { name: 'Long clips' })).project as Json)._id as string;
    projectId = id;
    await api('POST', `/v2/project/${id}`, {
      categorySchema: { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box' }], classifications: [] },
      stages: [
        { id: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Complete'] },
        { id: 'Complete', type: 'Complete', next: [] },
      ],
    });
    await api('POST', `/v2/project/${id}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    const names = ['/fast.mp4', '/late.mp4', '/whole/fast.mp4'];
    const res = await api('POST', `/v2/project/${id}/cloud`, {
      assets: names.map((name) => ({ data: `${files.url}${name}`, externalId: name })),
    });
    for (const a of res.assets as { externalId: string; taskId: string }[]) tasks[a.externalId] = a.taskId;
    await api('POST', '/v2/task/assign', {
      project: id,
      tasks: Object.values(tasks),
      stage: 'Label',
      user: 'labeler@example.com',
    });
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
    const page = await context.newPage();
    await signInWithKey(page, labelerKey);
    await page.close();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await files?.close();
  });

  const frameShown = (page: Page) => page.getByLabel('Frame shown').getAttribute('data-frame').then(Number);

  /** Waits for a frame to be drawn and answers what its pixels say. */
  const landOn = async (page: Page, index: number) => {
    await expect.poll(() => frameShown(page), { timeout: 20_000 }).toBe(index);
    return shownIndex(page, BARS);
  };

  const browserLog = (path: string) => files.log.filter((l) => l.path === path);

  /**
   * Opens a task, waits for its first frame and for reading to settle, then jumps to frame 281:
   * answers the bytes sent by then, and after the jump.
   */
  const openAndJump = async (page: Page, name: string) => {
    await page.goto(`/work/tasks/${tasks[name]}`);
    expect(await landOn(page, 0)).toBe(0);
    // The groups read ahead arrive a moment later.
    await page.waitForTimeout(500);
    const atFirst = files.sent(name);
    const frame = page.getByLabel('Frame', { exact: true });
    await frame.fill('281');
    await frame.press('Enter');
    expect(await landOn(page, 280)).toBe(280);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowLeft');
    expect(await landOn(page, 279)).toBe(279);
    return { atFirst, afterJump: files.sent(name) };
  };

  it('shows the first frame of a faststart MP4 long before the whole file is read, and jumps by range', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    const size = sizes['/fast.mp4']!;
    const { atFirst, afterJump } = await openAndJump(page, '/fast.mp4');
    const log = browserLog('/fast.mp4');
    console.info(`faststart: ${size} bytes; ${atFirst} read for the first frame, ${afterJump} after the jump`);
    // The first 256 KiB (the index and the first groups of pictures) and the groups read ahead.
    expect(atFirst).toBeLessThan(size * 0.5);
    expect(afterJump).toBeLessThan(size * 0.75);
    expect(log.every((l) => l.status === 206)).toBe(true);
    expect(log[0]!.range).toBe('bytes=0-262143');
    // Opened once: the work page's early start and the editor share the first request.
    expect(log.filter((l) => l.range === 'bytes=0-262143')).toHaveLength(1);
    // The jump read bytes past the middle of the file.
    const starts = log.map((l) => Number(/bytes=(\d+)/.exec(l.range ?? '')?.[1]));
    expect(Math.max(...starts)).toBeGreaterThan(size * 0.8);
    await screenshot(page, 'editor-video-ranges');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('reads the index of an MP4 whose moov comes after its media data without reading the media data', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    const size = sizes['/late.mp4']!;
    const { atFirst } = await openAndJump(page, '/late.mp4');
    const log = browserLog('/late.mp4');
    console.info(`moov at the end: ${size} bytes; ${atFirst} read for the first frame`);
    expect(atFirst).toBeLessThan(size * 0.5);
    expect(log.every((l) => l.status === 206)).toBe(true);
    // The probe, then the index read where the media data ends (the moov's header and body).
    expect(log.some((l) => Number(/bytes=(\d+)/.exec(l.range ?? '')?.[1]) > size * 0.9)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows the video in the browser's own player where WebCodecs is missing, saying frames are approximate", async () => {
    // Leaving the task in the first test gave it back: assigned again.
    await api('POST', '/v2/task/assign', {
      project: projectId,
      tasks: [tasks['/fast.mp4']],
      stage: 'Label',
      user: 'labeler@example.com',
    });
    // A browser without WebCodecs: VideoDecoder removed before the page's scripts run.
    const own = await newContext(browser, server.url);
    await own.addInitScript('delete window.VideoDecoder; delete window.EncodedVideoChunk;');
    const page = await own.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    await page.goto(`/work/tasks/${tasks['/fast.mp4']}`);
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toContain('This browser has no video decoder (WebCodecs).');
    await expect.poll(() => page.getByRole('note').textContent()).toContain('Frame positions are approximate');
    // Seeking by time: 5 s at 30 fps is about frame 151.
    const player = page.getByLabel("Video in the browser's player");
    expect(await player.getAttribute('controls')).not.toBeNull();
    await player.waitFor();
    await page.evaluate(`document.querySelector('.video-fallback video').currentTime = 5`);
    await expect
      .poll(() => page.getByLabel('Approximate frame').getAttribute('data-frame').then(Number))
      .toBeGreaterThanOrEqual(149);
    expect(Number(await page.getByLabel('Approximate frame').getAttribute('data-frame'))).toBeLessThanOrEqual(151);
    expect(await page.getByRole('button', { name: /^Car tool/ }).count()).toBe(0);
    await screenshot(page, 'editor-video-fallback');
    expect(errors).toEqual([]);
    await own.close();
  });

  it('plays a file whose server answers no ranges, read whole', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await openAndJump(page, '/whole/fast.mp4');
    const log = browserLog('/whole/fast.mp4');
    // Asked with a range, answered 200 with the whole file, and never asked again for more.
    expect(log.length).toBeGreaterThan(0);
    for (const l of log) expect([l.range, l.status, l.bytes]).toEqual(['bytes=0-262143', 200, sizes['/fast.mp4']]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
