import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets } from './helpers/editor-assets.js';
import { canvasView, dragFrom, signInWithKey, startStage } from './helpers/editor-page.js';

/*
 * Assets of pages with a real keyboard and mouse: a 3-page LZW-compressed TIFF and an asset of 3
 * PNG images (`dataset`), both made here by Pillow. Each page is painted one colour (red, green,
 * blue), so the page shown is read back from the canvas's pixels. Boxes drawn on a page stay on
 * that page and are stored with its `page` (counted from 0).
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const COLOURS = ['red', 'green', 'blue'] as const;

/** The pages, made by Pillow: a TIFF of three pages and three PNGs, 400 x 300, one colour each. */
function makePages(): { tiff: Buffer; pngs: Buffer[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-pages-'));
  const script = `
import sys
from PIL import Image, ImageDraw
out = sys.argv[1]
pages = []
for i, colour in enumerate(${JSON.stringify(COLOURS)}):
    img = Image.new('RGB', (400, 300), colour)
    ImageDraw.Draw(img).rectangle([10, 10, 60, 40], fill='white')
    img.save(f'{out}/p{i + 1}.png')
    pages.append(img)
pages[0].save(f'{out}/scan.tiff', save_all=True, append_images=pages[1:], compression='tiff_lzw')
`;
  execFileSync('/usr/bin/python3', ['-c', script, dir]);
  const read = (name: string) => fs.readFileSync(path.join(dir, name));
  const made = { tiff: read('scan.tiff'), pngs: [1, 2, 3].map((n) => read(`p${n}.png`)) };
  fs.rmSync(dir, { recursive: true, force: true });
  return made;
}

describe('the editor of assets of pages', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let context: BrowserContext;
  let labelerKey = '';
  const tasks: Record<string, string> = {};

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };

  beforeAll(async () => {
    const { tiff, pngs } = makePages();
    assets = await serveAssets({
      '/scan.tiff': { type: 'image/tiff', body: tiff },
      '/broken.tiff': { type: 'image/tiff', body: Buffer.from('II*\0 these are not the pages you are looking for') },
      ...Object.fromEntries(pngs.map((body, i) => [`/book/p${i + 1}.png`, { type: 'image/png', body }])),
    });
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('labeler@example.com');
    const projectId = ((await api('POST', '/v2/project', { name: 'Archive' })).project as Json)._id as string;
    await api('POST', `/v2/project/${projectId}`, {
      categorySchema: {
        tools: [{ schemaId: 'stamp', title: 'Stamp', tool: 'bounding-box', color: '#f79009', shortcutKey: 's' }],
        classifications: [],
      },
      stages: [
        { id: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Complete'] },
        { id: 'Complete', type: 'Complete', next: [] },
      ],
    });
    await api('POST', `/v2/project/${projectId}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    const book = [1, 2, 3].map((n) => `${assets.url}/book/p${n}.png`);
    const res = await api('POST', `/v2/project/${projectId}/cloud`, {
      assets: [
        { data: `${assets.url}/scan.tiff`, externalId: 'scan' },
        { data: book[0], dataset: book, externalId: 'book' },
        { data: `${assets.url}/broken.tiff`, externalId: 'broken' },
      ],
    });
    for (const a of res.assets as { externalId: string; taskId: string }[]) tasks[a.externalId] = a.taskId;
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  /** The task assigned to the labeler (closing an editor may give an untouched task back). */
  const holdForLabeler = async (taskId: string | undefined) => {
    const task = (await api('GET', `/v2/task/${taskId}`)).task as Json;
    await api('POST', '/v2/task/assign', {
      project: task.project,
      tasks: [taskId],
      stage: 'Label',
      user: 'labeler@example.com',
    });
  };

  /** The colour of the page shown, read from the screen's pixel at the page's centre. */
  const colourShown = async (page: Page): Promise<string> => {
    const view = await canvasView(page);
    const [x, y] = view.screen([200, 200]);
    const shot = PNG.sync.read(
      await page.screenshot({ clip: { x: Math.round(x), y: Math.round(y), width: 1, height: 1 } }),
    );
    const [r = 0, g = 0, b = 0] = shot.data;
    if (r > 200 && g < 60 && b < 60) return 'red';
    if (g > 100 && r < 60 && b < 60) return 'green';
    if (b > 200 && r < 60 && g < 60) return 'blue';
    return `rgb(${r}, ${g}, ${b})`;
  };
  const pageShown = (page: Page) => page.getByLabel('Page shown').getAttribute('data-page').then(Number);
  const objectsHeading = (page: Page) => page.getByRole('heading', { name: /^Objects \(/ }).textContent();

  /** Draws a stamp on the page shown, then goes back to selecting. */
  const drawStamp = async (page: Page, from: [number, number], to: [number, number]) => {
    await page.getByRole('button', { name: /^Stamp tool/ }).click();
    await dragFrom(page, from, to);
    await page.getByRole('button', { name: 'Select tool' }).click();
  };

  it('turns the pages of a multi-page TIFF and keeps each box on its page', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    await startStage(page, 'Label', 'Archive');
    await page.goto(`/work/tasks/${tasks.scan}`);
    await expect.poll(() => colourShown(page), { timeout: 15_000 }).toBe('red');
    expect(await page.getByText('of 3', { exact: true }).count()).toBe(1);

    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('PageDown');
    await expect.poll(() => pageShown(page)).toBe(1);
    await expect.poll(() => colourShown(page)).toBe('green');
    await drawStamp(page, [100, 100], [200, 180]);
    await expect.poll(() => objectsHeading(page)).toBe('Objects (1)');

    const pageInput = page.getByLabel('Page', { exact: true });
    await pageInput.fill('3');
    await pageInput.press('Enter');
    await expect.poll(() => colourShown(page)).toBe('blue');
    // The box of page 2 is not on page 3.
    await expect.poll(() => objectsHeading(page)).toBe('Objects (0)');
    await drawStamp(page, [220, 60], [300, 120]);
    await expect.poll(() => objectsHeading(page)).toBe('Objects (1)');
    await screenshot(page, 'editor-pages-tiff');

    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => colourShown(page)).toBe('green');
    await expect.poll(() => objectsHeading(page)).toBe('Objects (1)');

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL((u) => !u.pathname.includes(tasks.scan as string));
    const task = (await api('GET', `/v2/task/${tasks.scan}`)).task as Json;
    const tools = [...(task.answer.tools as Json[])].sort((a, b) => a.page - b.page);
    expect(tools.map((t) => t.page)).toEqual([1, 2]);
    expect(Math.abs((tools[0]!['bounding-box'] as Json).x - 100)).toBeLessThan(2);
    expect(Math.abs((tools[1]!['bounding-box'] as Json).x - 220)).toBeLessThan(2);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('labels an asset of three images page by page', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await holdForLabeler(tasks.book);
    await page.goto(`/work/tasks/${tasks.book}`);
    await expect.poll(() => colourShown(page), { timeout: 15_000 }).toBe('red');
    await drawStamp(page, [50, 150], [150, 250]);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => colourShown(page)).toBe('green');
    await expect.poll(() => objectsHeading(page)).toBe('Objects (0)');
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => colourShown(page)).toBe('blue');
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await drawStamp(page, [250, 150], [350, 250]);
    await page.keyboard.press('Home');
    await expect.poll(() => colourShown(page)).toBe('red');
    await expect.poll(() => objectsHeading(page)).toBe('Objects (1)');
    await screenshot(page, 'editor-pages-dataset');

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL((u) => !u.pathname.includes(tasks.book as string));
    const task = (await api('GET', `/v2/task/${tasks.book}`)).task as Json;
    expect((task.answer.tools as Json[]).map((t) => t.page).sort()).toEqual([0, 2]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says in words when a TIFF cannot be read, and keeps the task workable', async () => {
    const page = await context.newPage();
    await holdForLabeler(tasks.broken);
    await page.goto(`/work/tasks/${tasks.broken}`);
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/TIFF/);
    await page.getByRole('button', { name: 'Submit', exact: true }).waitFor();
    await screenshot(page, 'editor-pages-broken');
    await page.close();
  });
});
