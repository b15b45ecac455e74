import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ringArea, zonesArea } from '../helpers/rings.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import {
  canvasView,
  signInWithKey,
  startStage,
  strokeThrough,
  shownAt as shownOn,
  type Vec,
} from './helpers/editor-page.js';

/*
 * The brush, with a real mouse and keyboard on a generated picture: a stroke paints the class's
 * colour over the image, the eraser (and the right button) clears part of it, undo and redo go
 * stroke by stroke, `[` and `]` change the size, and the bucket fills a closed ring; the layer is
 * stored as one PNG the image's size. A segmentation outline with a hole cut by Alt is stored as
 * zones whose area is the drawn one.
 */

const engine = ENGINES[0] ?? 'sqlite';
const IMAGE = { width: 800, height: 600 };
const SKY: [number, number, number] = [150, 190, 230];
type Json = Record<string, unknown>;

describe('the brush', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let page: Page;
  let errors: string[] = [];
  let taskId = '';

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };

  const shownAt = (p: Vec) => shownOn(page, p);
  /** Painted red over the sky (the layer is shown at 60 % over the image). */
  const painted = async (p: Vec) => {
    const [r, g, b] = await shownAt(p);
    return r > 200 && g < 120 && b < 140;
  };
  const plainSky = async (p: Vec) => {
    const c = await shownAt(p);
    return c.every((v, i) => Math.abs(v - SKY[i]!) <= 3);
  };

  const stroke = (points: Vec[], button: 'left' | 'right' = 'left') => strokeThrough(page, points, button);

  beforeAll(async () => {
    assets = await serveAssets({ '/field.png': { type: 'image/png', body: streetPng(IMAGE.width, IMAGE.height) } });
    server = await startConsoleServer(engine);
    const labelerKey = await server.addUser('labeler@example.com');
    const project = ((await api('POST', '/v2/project', { name: 'Masks' })).project as Json)._id as string;
    await api('POST', `/v2/project/${project}`, {
      categorySchema: {
        tools: [
          { schemaId: 'crop', title: 'Crop', tool: 'brush', color: '#ff0000', shortcutKey: 'b' },
          {
            schemaId: 'field',
            title: 'Field',
            tool: 'segmentation',
            color: '#00a000',
            shortcutKey: 's',
            multiple: true,
          },
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
      assets: [{ data: `${assets.url}/field.png`, externalId: 'field' }],
    });
    browser = await launchBrowser();
    const context = await newContext(browser, server.url);
    page = await context.newPage();
    errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    taskId = await startStage(page, 'Label', 'Masks');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  it('paints a stroke, erases part of it, and undoes and redoes stroke by stroke', async () => {
    await page.getByRole('toolbar', { name: 'Drawing tools' }).waitFor();
    await screenshot(page, 'editor-brush-open');
    await page.getByRole('button', { name: 'Crop tool' }).click();
    const size = page.getByLabel('Brush size');
    await expect.poll(() => size.inputValue()).toBe('20');
    await size.fill('30');
    // Keys typed into the field are the field's: a middle click (which pans, not paints) leaves it.
    await page.getByTestId('editor-canvas').click({ position: { x: 5, y: 5 }, button: 'middle' });
    await page.keyboard.press(']');
    await expect.poll(() => size.inputValue()).toBe('36');
    await page.keyboard.press('[');
    await expect.poll(() => size.inputValue()).toBe('29');
    await size.fill('30');

    // Across the sky at y = 40, from x = 420 to 620 (clear of the grid lines).
    await stroke([
      [420, 40],
      [520, 40],
      [620, 40],
    ]);
    expect(await painted([450, 40])).toBe(true);
    expect(await painted([610, 50])).toBe(true);
    expect(await plainSky([450, 70])).toBe(true);
    expect(await plainSky([650, 40])).toBe(true);

    // The eraser (Shift+E) clears a band across the stroke; so does the right button.
    await page.keyboard.press('Shift+E');
    await expect.poll(() => page.getByRole('button', { name: /Eraser/ }).getAttribute('aria-pressed')).toBe('true');
    await stroke([
      [470, 10],
      [470, 70],
    ]);
    expect(await plainSky([470, 40])).toBe(true);
    await page.keyboard.press('Shift+E');
    await stroke(
      [
        [570, 10],
        [570, 70],
      ],
      'right',
    );
    expect(await plainSky([570, 40])).toBe(true);
    expect(await painted([520, 40])).toBe(true);
    await screenshot(page, 'editor-brush-erased');

    // Undo brings back the erased bands one stroke at a time; redo erases again.
    await page.keyboard.press('Control+z');
    expect(await painted([570, 40])).toBe(true);
    expect(await plainSky([470, 40])).toBe(true);
    await page.getByRole('button', { name: 'Undo' }).click();
    expect(await painted([470, 40])).toBe(true);
    await page.keyboard.press('Control+Shift+z');
    expect(await plainSky([470, 40])).toBe(true);
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('button', { name: 'Undo' }).click();
    expect(await plainSky([450, 40])).toBe(true);
    await page.getByRole('button', { name: 'Redo' }).click();
    expect(await painted([450, 40])).toBe(true);
  });

  it('fills a closed ring with the bucket', async () => {
    await page.getByLabel('Brush size').fill('6');
    // A ring in the sky around (520, 150): the square's inside is closed by the stroke.
    await stroke([
      [470, 110],
      [570, 110],
      [570, 190],
      [470, 190],
      [470, 110],
    ]);
    expect(await plainSky([520, 150])).toBe(true);
    await page.getByRole('button', { name: 'Fill' }).click();
    const [sx, sy] = (await canvasView(page)).screen([520, 150]);
    await page.mouse.click(sx, sy);
    expect(await painted([520, 150])).toBe(true);
    expect(await painted([490, 130])).toBe(true);
    expect(await plainSky([650, 150])).toBe(true);
    await screenshot(page, 'editor-brush-filled');
    await page.keyboard.press('Control+z');
    expect(await plainSky([520, 150])).toBe(true);
  });

  const clickPolygon = async (points: Vec[]) => {
    const view = await canvasView(page);
    for (const p of [...points, points[0]!]) {
      const [x, y] = view.screen(p);
      await page.mouse.click(x, y);
    }
  };
  it('draws a segmentation outline, cuts a hole with Alt, and stores zones with holes', async () => {
    await page.getByRole('button', { name: 'Field tool' }).click();
    await clickPolygon([
      [400, 250],
      [700, 250],
      [700, 450],
      [400, 450],
    ]);
    // The hole: Alt held on the presses (the closing one cuts it out of the selected object).
    await page.keyboard.down('Alt');
    await clickPolygon([
      [500, 300],
      [600, 300],
      [600, 400],
      [500, 400],
    ]);
    await page.keyboard.up('Alt');
    await screenshot(page, 'editor-segmentation-hole');

    // The magic wand on the dark block (100, 80)-(300, 200): one click, the block's area.
    await page.getByRole('button', { name: 'Magic wand' }).click();
    await page.getByLabel('Tolerance').fill('20');
    const [sx, sy] = (await canvasView(page)).screen([200, 140]);
    await page.mouse.click(sx, sy);
    await expect.poll(() => page.getByRole('button', { name: /^Field \d/ }).count()).toBe(2);

    // Paint, then trace: a 40 px stroke along the road becomes a zone of its area.
    await page.getByRole('button', { name: 'Paint' }).click();
    await page.getByLabel('Brush size').fill('40');
    await stroke([
      [150, 450],
      [250, 450],
      [350, 450],
    ]);
    await expect.poll(() => page.getByRole('button', { name: /^Field \d/ }).count()).toBe(3);
    await screenshot(page, 'editor-segmentation-wand-paint');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const task = (await api('GET', `/v2/task/${taskId}`)).task as Json;
    const tools = (task.answer as Json).tools as Json[];
    const field = tools.filter((t) => t.schemaId === 'field');
    expect(field).toHaveLength(3);
    type Zones = { region: Vec[]; holes: Vec[][] }[];
    const zones = (field[0]!.segmentation as { zones: Zones }).zones;
    expect(zones).toHaveLength(1);
    expect(zones[0]!.holes).toHaveLength(1);
    const area = ringArea(zones[0]!.region) - ringArea(zones[0]!.holes[0]!);
    expect(Math.abs(area - (300 * 200 - 100 * 100)) / 50_000).toBeLessThan(0.01);
    const wand = (field[1]!.segmentation as { zones: Zones }).zones;
    expect(wand).toHaveLength(1);
    expect(Math.abs(zonesArea(wand) - 200 * 120) / (200 * 120)).toBeLessThan(0.01);
    const traced = (field[2]!.segmentation as { zones: Zones }).zones;
    const strokeArea = 200 * 40 + Math.PI * 20 * 20;
    expect(traced).toHaveLength(1);
    expect(Math.abs(zonesArea(traced) - strokeArea) / strokeArea).toBeLessThan(0.01);

    // The brush layer, read back through the API: one PNG the image's size, the class's colour
    // opaque under the stroke and the ring, transparent elsewhere (the fill was undone).
    const link = task.brushDataUrl as string;
    expect(link).toMatch(/^http/);
    const layer = PNG.sync.read(Buffer.from(await (await fetch(link)).arrayBuffer()));
    expect([layer.width, layer.height]).toEqual([IMAGE.width, IMAGE.height]);
    const rgba = ([x, y]: Vec) => [...layer.data.subarray((y * layer.width + x) * 4, (y * layer.width + x) * 4 + 4)];
    for (const p of [
      [430, 40],
      [520, 30],
      [610, 52],
      [470, 110],
      [570, 150],
    ] as Vec[])
      expect(rgba(p)).toEqual([255, 0, 0, 255]);
    for (const p of [
      [430, 70],
      [650, 40],
      [520, 150],
      [100, 500],
    ] as Vec[])
      expect(rgba(p)[3]).toBe(0);
    let painted = 0;
    for (let i = 3; i < layer.data.length; i += 4) if (layer.data[i]) painted++;
    // The stroke (about 200 x 30 with round ends) and the ring (a 100 x 80 outline 6 wide).
    expect(painted).toBeGreaterThan(200 * 30);
    expect(painted).toBeLessThan(200 * 30 + 30 * 30 + 2 * (100 + 80) * 6 + 200);
    expect(errors).toEqual([]);
  });
});
