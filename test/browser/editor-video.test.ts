import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets } from './helpers/editor-assets.js';
import { encodeBars, shownIndex as shownBars } from './helpers/bar-video.js';
import { clickAt, dragFrom, signInWithKey, startStage } from './helpers/editor-page.js';

/*
 * The video editor with a real keyboard and mouse, on an H.264 MP4 ffmpeg makes here whose
 * frames show their own index as a bar code (8 bars, white for a 1 bit): stepping, ten-frame
 * steps, typed jumps and seeks land on the frame asked for, read back from the canvas's pixels;
 * a box drawn on frame 1 and moved on frame 31 is stored as two entries of one object, page 0
 * and 30; the same stepping on a VP9 WebM; a file that is not a video (or an address answering
 * 404) and a codec the browser cannot decode (MPEG-4 Part 2) are said in words, with the
 * whole-video questions offered.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const W = 320;
const H = 240;
const FRAMES = 60;

const BARS = { width: W, height: H, frames: FRAMES, bits: 8 };

function encode(name: string, args: string[]): Buffer {
  return encodeBars(BARS, name, args);
}

describe('the video editor', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let context: BrowserContext;
  let labelerKey = '';
  let clips = '';
  const tasks: Record<string, string> = {};

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };

  beforeAll(async () => {
    // H.264 with B-frames (decode order is not display order) and a keyframe every 30 frames.
    const mp4 = encode('bars.mp4', [
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-g', '30', '-bf', '2', '-crf', '12', '-movflags', '+faststart'],
    ]);
    // Every third frame after the tenth, kept at its own time: frames 33 ms and 100 ms apart.
    const uneven = encode('uneven.mp4', [
      ...['-vf', "select='not(mod(n\\,3))+lt(n\\,10)'", '-fps_mode', 'vfr', '-c:v', 'libx264', '-pix_fmt', 'yuv420p'],
    ]);
    // VP9 in WebM, a keyframe every 30 frames (with hidden alt-ref frames, as libvpx makes them).
    const webm = encode('bars.webm', [
      '-c:v',
      'libvpx-vp9',
      '-g',
      '30',
      '-crf',
      '20',
      '-b:v',
      '0',
      '-deadline',
      'realtime',
    ]);
    // MPEG-4 Part 2 in MP4: a real video WebCodecs in Chromium does not decode.
    const part2 = encode('part2.mp4', ['-c:v', 'mpeg4', '-q:v', '3']);
    assets = await serveAssets({
      '/bars.webm': { type: 'video/webm', body: webm },
      '/part2.mp4': { type: 'video/mp4', body: part2 },
      '/uneven.mp4': { type: 'video/mp4', body: uneven },
      '/bars.mp4': { type: 'video/mp4', body: mp4 },
      '/words.mp4': { type: 'video/mp4', body: Buffer.from('this is not a video at all, only words') },
    });
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('labeler@example.com');
    /** A project of a Label stage with the labeler in it; its tasks by externalId. */
    const project = async (name: string, categorySchema: Json, files: string[]) => {
      const id = ((await api('POST', '/v2/project', { name })).project as Json)._id as string;
      await api('POST', `/v2/project/${id}`, {
        categorySchema,
        stages: [
          { id: 'Start', type: 'Start', next: ['Label'] },
          { id: 'Label', name: 'Label', type: 'Label', next: ['Complete'] },
          { id: 'Complete', type: 'Complete', next: [] },
        ],
      });
      await api('POST', `/v2/project/${id}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
      const res = await api('POST', `/v2/project/${id}/cloud`, {
        assets: files.map((name) => ({ data: `${assets.url}/${name}`, externalId: name })),
      });
      for (const a of res.assets as { externalId: string; taskId: string }[]) tasks[a.externalId] = a.taskId;
      return id;
    };
    await project(
      'Traffic',
      {
        tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#1570ef', shortcutKey: 'c' }],
        classifications: [],
      },
      ['bars.mp4', 'words.mp4', 'missing.mp4'],
    );
    // A frame question and a whole-video one.
    const questions = {
      tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box' }],
      classifications: [
        {
          schemaId: 'light',
          title: 'Light',
          tool: 'radio',
          frameSpecific: true,
          options: [{ schemaId: 'red', value: 'Red' }],
        },
        { schemaId: 'weather', title: 'Weather', tool: 'radio', options: [{ schemaId: 'rain', value: 'Rain' }] },
      ],
    };
    // The variable-frame-rate video in a project of its own.
    await project('Uneven clips', questions, ['uneven.mp4']);
    // The WebM and the undecodable codec, each task opened directly, so assigned first.
    clips = await project('Clips', questions, ['bars.webm', 'part2.mp4']);
    for (const name of ['bars.webm', 'part2.mp4']) {
      await api('POST', '/v2/task/assign', {
        project: clips,
        tasks: [tasks[name]],
        stage: 'Label',
        user: 'labeler@example.com',
      });
    }
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  /** The frame index the canvas shows, read from its bar code's pixels on the screen. */
  const shownIndex = (page: Page) => shownBars(page, BARS);

  const frameShown = (page: Page) => page.getByLabel('Frame shown').getAttribute('data-frame').then(Number);

  /** Waits for the frame asked for to be drawn and answers what its pixels say. */
  const landOn = async (page: Page, index: number) => {
    await expect.poll(() => frameShown(page)).toBe(index);
    return shownIndex(page);
  };

  /** Steps, ten-frame steps, typed jumps and seeks across keyframes, each checked by the pixels shown. */
  const stepsAndJumps = async (page: Page) => {
    await page.keyboard.press('ArrowRight');
    expect(await landOn(page, 1)).toBe(1);
    await page.keyboard.press('.');
    expect(await landOn(page, 2)).toBe(2);
    await page.keyboard.press('Shift+ArrowRight');
    expect(await landOn(page, 12)).toBe(12);
    await page.keyboard.press(',');
    expect(await landOn(page, 11)).toBe(11);

    const frame = page.getByLabel('Frame', { exact: true });
    // Frame 45 sits after the second keyframe (frame 31), with B-frames around it.
    await frame.fill('45');
    await frame.press('Enter');
    expect(await landOn(page, 44)).toBe(44);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Shift+ArrowLeft');
    expect(await landOn(page, 34)).toBe(34);
    await page.keyboard.press('ArrowLeft');
    expect(await landOn(page, 33)).toBe(33);
    // A seek backwards across a keyframe, then the last frame.
    await frame.fill('5');
    await frame.press('Enter');
    expect(await landOn(page, 4)).toBe(4);
    await frame.fill('60');
    await frame.press('Enter');
    expect(await landOn(page, 59)).toBe(59);
  };

  it('says which decoder path the test browser has for H.264', async () => {
    const page = await context.newPage();
    await page.goto('/signin');
    const support = await page.evaluate<string | boolean>(`(async () =>
      typeof VideoDecoder === 'undefined'
        ? 'no WebCodecs'
        : (await VideoDecoder.isConfigSupported({ codec: 'avc1.64001e', codedWidth: 320, codedHeight: 240 }))
            .supported)()`);
    console.info(`VideoDecoder.isConfigSupported(avc1.64001e) in the test browser: ${String(support)}`);
    expect(support).toBe(true);
    await page.close();
  });

  it('steps, jumps and seeks to the exact frame, and keeps a moved box as two keyframes', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    await startStage(page, 'Label', 'Traffic');
    await page.goto(`/work/tasks/${tasks['bars.mp4']}`);
    expect(await landOn(page, 0)).toBe(0);

    await stepsAndJumps(page);
    await screenshot(page, 'editor-video-frame-60');

    // A box on frame 1, moved on frame 31.
    const frame = page.getByLabel('Frame', { exact: true });
    await frame.fill('1');
    await frame.press('Enter');
    expect(await landOn(page, 0)).toBe(0);
    await page.getByRole('button', { name: /^Car tool/ }).click();
    await dragFrom(page, [40, 140], [120, 200]);
    await page.getByRole('button', { name: 'Select tool' }).click();
    await frame.fill('31');
    await frame.press('Enter');
    expect(await landOn(page, 30)).toBe(30);
    await clickAt(page, [80, 170]);
    await dragFrom(page, [80, 170], [180, 180]);
    await expect.poll(() => page.locator('.video-timeline path').count()).toBe(2);
    await screenshot(page, 'editor-video-keyframes');

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL((u) => !u.pathname.includes(tasks['bars.mp4'] as string));
    const task = (await api('GET', `/v2/task/${tasks['bars.mp4']}`)).task as Json;
    const tools = task.answer.tools as Json[];
    expect(tools, JSON.stringify(tools)).toHaveLength(2);
    expect(new Set(tools.map((t) => t.objectId)).size).toBe(1);
    const [first, moved] = [...tools].sort((a, b) => a.page - b.page) as [Json, Json];
    expect([first.page, moved.page]).toEqual([0, 30]);
    const a = first['bounding-box'] as Json;
    const b = moved['bounding-box'] as Json;
    expect(Math.abs(a.x - 40)).toBeLessThan(2);
    expect(Math.abs(b.x - 140)).toBeLessThan(2);
    expect(Math.abs(b.y - a.y - 10)).toBeLessThan(2);
    expect(b.width).toBeCloseTo(a.width, 1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('steps, jumps and seeks to the exact frame on a VP9 WebM, and answers a frame question per frame', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await page.goto(`/work/tasks/${tasks['bars.webm']}`);
    expect(await landOn(page, 0)).toBe(0);
    await stepsAndJumps(page);
    await expect.poll(() => page.getByLabel('Frames in the video').textContent()).toBe('of 60');

    // The frame question answered on frame 11, stopped on frame 21; the whole-video one once.
    const frame = page.getByLabel('Frame', { exact: true });
    const goTo = async (n: number) => {
      await frame.fill(String(n));
      await frame.press('Enter');
      await expect.poll(() => frameShown(page)).toBe(n - 1);
    };
    await goTo(11);
    await page.getByLabel('Red').check();
    await page.getByLabel('Rain').check();
    await goTo(21);
    await page.getByRole('button', { name: 'Stop Light from here' }).click();
    await expect.poll(() => page.locator('.video-timeline [data-question="light"] path').count()).toBe(2);
    await goTo(15);
    expect(await page.getByLabel('Red').isChecked()).toBe(true);
    await goTo(5);
    expect(await page.getByLabel('Red').isChecked()).toBe(false);
    await goTo(25);
    expect(await page.getByLabel('Red').isChecked()).toBe(false);
    expect(await page.getByLabel('Rain').isChecked()).toBe(true);
    await screenshot(page, 'editor-video-webm');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL((u) => !u.pathname.includes(tasks['bars.webm'] as string));
    const task = (await api('GET', `/v2/task/${tasks['bars.webm']}`)).task as Json;
    const byPage = (list: Json[]) => [...list].sort((a, b) => (a.page ?? -1) - (b.page ?? -1));
    expect(byPage(task.answer.classifications)).toEqual([
      { schemaId: 'weather', answer: 'rain' },
      { schemaId: 'light', answer: 'red', page: 10 },
      { schemaId: 'light', answer: 'red', page: 20, interpolationStopped: true },
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says so when the browser cannot decode the codec, and offers the whole-video questions', async () => {
    // Submitting the WebM opened this task, and leaving it gave it back: assigned again.
    await api('POST', '/v2/task/assign', {
      project: clips,
      tasks: [tasks['part2.mp4']],
      stage: 'Label',
      user: 'labeler@example.com',
    });
    const page = await context.newPage();
    await page.goto(`/work/tasks/${tasks['part2.mp4']}`);
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toMatch(/This browser cannot decode the video's codec \(mp4v[^)]*\)\. The answer saved so far is kept/);
    expect(await page.getByText('Light', { exact: true }).count()).toBe(0);
    await page.getByLabel('Rain').check();
    await screenshot(page, 'editor-video-codec');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const task = (await api('GET', `/v2/task/${tasks['part2.mp4']}`)).task as Json;
    expect(task.answer.classifications).toEqual([{ schemaId: 'weather', answer: 'rain' }]);
    await page.close();
  });

  it('says in words when the file is not a video', async () => {
    const page = await context.newPage();
    const opened = await startStage(page, 'Label', 'Traffic');
    const said = opened === tasks['words.mp4'] ? 'The file is not a video this editor can read' : 'answered 404';
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain(said);
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('The answer saved so far is kept');
    // Not a dead end: the task can still be submitted (or skipped) without its video.
    await page.getByRole('button', { name: 'Submit', exact: true }).waitFor();
    await screenshot(page, 'editor-video-not-a-video');
    await page.close();
  });

  it('shows a variable-frame-rate video with its whole-video questions only', async () => {
    const own = await newContext(browser, server.url);
    const page = await own.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    const opened = await startStage(page, 'Label', 'Uneven clips');
    expect(opened).toBe(tasks['uneven.mp4']);
    await expect.poll(() => page.getByRole('note').textContent()).toContain('variable frame rate');
    expect(await page.getByRole('button', { name: /^Car tool/ }).count()).toBe(0);
    expect(await page.getByText('Light', { exact: true }).count()).toBe(0);
    await page.getByLabel('Rain').check();
    await expect.poll(() => frameShown(page)).toBe(0);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => frameShown(page)).toBe(1);
    await screenshot(page, 'editor-video-vfr');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const task = (await api('GET', `/v2/task/${tasks['uneven.mp4']}`)).task as Json;
    expect(task.answer.classifications.map((c: Json) => c.schemaId)).toEqual(['weather']);
    expect(task.answer.tools).toEqual([]);
    expect(errors).toEqual([]);
    await own.close();
  });
});
