import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zonesArea } from '../helpers/rings.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import { canvasView, signInWithKey, startStage, strokeThrough, type Vec } from './helpers/editor-page.js';

/*
 * The project's segmentationOverlap in the editor, with a real mouse: under earlier-wins a
 * segmentation outline drawn over an earlier object keeps only what lies outside it, one drawn
 * wholly inside it is not added, and a brush class does not paint over another class's pixels;
 * under later-wins the earlier object loses the shared area and brush strokes paint over. What the
 * editor drew is what the server stores (read back through the API).
 */

const engine = ENGINES[0] ?? 'sqlite';
const IMAGE = { width: 800, height: 600 };
type Json = Record<string, unknown>;
type Zones = { region: Vec[]; holes: Vec[][] }[];

describe('overlapping objects', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let page: Page;
  let errors: string[] = [];
  let project = '';

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };
  const stroke = (points: Vec[], button: 'left' | 'right' = 'left') => strokeThrough(page, points, button);
  const square = async ([x, y]: Vec, s: number) => {
    const view = await canvasView(page);
    for (const p of [
      [x, y],
      [x + s, y],
      [x + s, y + s],
      [x, y + s],
      [x, y],
    ] as Vec[]) {
      const [sx, sy] = view.screen(p);
      await page.mouse.click(sx, sy);
    }
  };
  const fields = () => page.getByRole('button', { name: /^Field \d/ });

  /** Draws two overlapping squares and a small one inside the first, and a cross of two brush strokes. */
  const drawAll = async () => {
    await page.getByRole('toolbar', { name: 'Drawing tools' }).waitFor();
    await page.getByRole('button', { name: 'Field tool' }).click();
    await square([100, 100], 200);
    await expect.poll(() => fields().count()).toBe(1);
    await square([200, 200], 200);
    await expect.poll(() => fields().count()).toBe(2);
    await square([120, 120], 100);
    await page.getByRole('button', { name: 'Crop tool' }).click();
    await page.getByLabel('Brush size').fill('20');
    await stroke([
      [420, 40],
      [620, 40],
    ]);
    await page.getByRole('button', { name: 'Weed tool' }).click();
    await stroke([
      [520, 10],
      [520, 90],
    ]);
  };
  /** Submits and reads the stored objects' areas in drawing order and the layer's pixels. */
  const submitted = async (taskId: string) => {
    await page.getByRole('button', { name: 'Submit' }).click();
    const stored = async () => (await api('GET', `/v2/task/${taskId}`)).task as Json;
    await expect.poll(async () => (await stored()).status, { timeout: 15_000, interval: 500 }).toBe('Completed');
    const task = await stored();
    const tools = (task.answer as Json).tools as Json[];
    const areas = tools.map((t) => zonesArea((t.segmentation as { zones: Zones }).zones));
    const layer = PNG.sync.read(Buffer.from(await (await fetch(task.brushDataUrl as string)).arrayBuffer()));
    const rgba = ([x, y]: Vec) => [...layer.data.subarray((y * layer.width + x) * 4, (y * layer.width + x) * 4 + 4)];
    return { areas, rgba };
  };

  beforeAll(async () => {
    assets = await serveAssets({ '/field.png': { type: 'image/png', body: streetPng(IMAGE.width, IMAGE.height) } });
    server = await startConsoleServer(engine);
    const labelerKey = await server.addUser('labeler@example.com');
    project = ((await api('POST', '/v2/project', { name: 'Plots' })).project as Json)._id as string;
    await api('POST', `/v2/project/${project}`, {
      segmentationOverlap: 'earlier-wins',
      categorySchema: {
        tools: [
          { schemaId: 'crop', title: 'Crop', tool: 'brush', color: '#ff0000' },
          { schemaId: 'weed', title: 'Weed', tool: 'brush', color: '#0000ff' },
          { schemaId: 'field', title: 'Field', tool: 'segmentation', color: '#00a000', multiple: true },
        ],
        classifications: [],
      },
      stages: [
        { id: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Complete'] },
        { id: 'Complete', type: 'Complete', next: [] },
      ],
    });
    await api('POST', `/v2/project/${project}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    await api('POST', `/v2/project/${project}/cloud`, {
      assets: [
        { data: `${assets.url}/field.png`, externalId: 'first' },
        { data: `${assets.url}/field.png`, externalId: 'second' },
      ],
    });
    browser = await launchBrowser();
    const context = await newContext(browser, server.url);
    page = await context.newPage();
    errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  it('earlier-wins: a later outline keeps what lies outside earlier objects; brush classes do not paint over each other', async () => {
    const taskId = await startStage(page, 'Label', 'Plots');
    await drawAll();
    // The square drawn wholly inside the first one added nothing.
    expect(await fields().count()).toBe(2);
    await screenshot(page, 'editor-overlap-earlier-wins');
    const { areas, rgba } = await submitted(taskId);
    expect(areas).toHaveLength(2);
    expect(Math.abs(areas[0]! - 40_000) / 40_000).toBeLessThan(0.01);
    expect(Math.abs(areas[1]! - 30_000) / 30_000).toBeLessThan(0.01);
    // Where the weed stroke crossed the crop stroke the crop stays; above and below it is weed.
    expect(rgba([520, 40])).toEqual([255, 0, 0, 255]);
    expect(rgba([520, 15])).toEqual([0, 0, 255, 255]);
    expect(rgba([520, 80])).toEqual([0, 0, 255, 255]);
    expect(rgba([450, 40])).toEqual([255, 0, 0, 255]);
  });

  it('later-wins: the earlier object loses the shared area; a later brush stroke paints over', async () => {
    await api('POST', `/v2/project/${project}`, { segmentationOverlap: 'later-wins' });
    const taskId = await startStage(page, 'Label', 'Plots');
    await drawAll();
    // The small square inside the first (it also reaches into the second) cut a hole in it.
    expect(await fields().count()).toBe(3);
    await screenshot(page, 'editor-overlap-later-wins');
    const { areas, rgba } = await submitted(taskId);
    expect(areas).toHaveLength(3);
    // The first square loses both later ones (they share a 20 x 20 corner); the second loses that corner.
    expect(Math.abs(areas[0]! - 20_400) / 20_400).toBeLessThan(0.01);
    expect(Math.abs(areas[1]! - 39_600) / 39_600).toBeLessThan(0.01);
    expect(Math.abs(areas[2]! - 10_000) / 10_000).toBeLessThan(0.01);
    expect(rgba([520, 40])).toEqual([0, 0, 255, 255]);
    expect(rgba([450, 40])).toEqual([255, 0, 0, 255]);
    expect(errors).toEqual([]);
  });
});
