import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadBrushLayer } from '../helpers/brush-upload.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import { canvasView, clickAt, signInWithKey, startStage, shownAt as shownOn, type Vec } from './helpers/editor-page.js';

/*
 * Masks outside the labeling editor: the console's task page draws the task's brush layer and its
 * segmentation zones (holes left empty), read-only; a reviewer's issue raised on a zone keeps the
 * clicked point, which lies on the mask (the middle of a ring-shaped zone's box does not), and its
 * pin is drawn there on the task page.
 */

const engine = ENGINES[0] ?? 'sqlite';
const IMAGE = { width: 800, height: 600 };
type Json = Record<string, unknown>;
const square = (x0: number, y0: number, x1: number, y1: number): Vec[] => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
];

describe('masks on the task page and in review', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let page: Page;
  let errors: string[] = [];
  let project = '';
  let taskId = '';
  let reviewerKey = '';

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };
  const shownAt = (p: Vec) => shownOn(page, p);
  const red = async (p: Vec) => {
    const [r, g, b] = await shownAt(p);
    return r > 200 && g < 120 && b < 140;
  };
  /** The sky (150, 190, 230) under the zone's light green fill: its blue drops to about 184. */
  const tinted = async (p: Vec) => {
    const [, , b] = await shownAt(p);
    return b < 210;
  };

  beforeAll(async () => {
    assets = await serveAssets({ '/plot.png': { type: 'image/png', body: streetPng(IMAGE.width, IMAGE.height) } });
    server = await startConsoleServer(engine);
    reviewerKey = await server.addUser('reviewer@example.com');
    project = ((await api('POST', '/v2/project', { name: 'Plots' })).project as Json)._id as string;
    await api('POST', `/v2/project/${project}`, {
      categorySchema: {
        tools: [
          { schemaId: 'crop', title: 'Crop', tool: 'brush', color: '#ff0000' },
          { schemaId: 'field', title: 'Field', tool: 'segmentation', color: '#00a000' },
        ],
        classifications: [],
      },
      stages: [
        { id: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Review'] },
        { id: 'Review', name: 'Review', type: 'Review', next: ['Complete', 'Label'] },
        { id: 'Complete', type: 'Complete', next: [] },
      ],
    });
    await api('POST', `/v2/project/${project}/assigned`, { assignees: ['reviewer@example.com'], role: 'Reviewer' });
    const imported = await api('POST', `/v2/project/${project}/cloud`, {
      assets: [{ data: `${assets.url}/plot.png`, externalId: 'plot', metadata: IMAGE }],
    });
    taskId = (imported.assets as Json[])[0]!.taskId as string;
    // A ring-shaped zone (the middle of its box is in its hole) and a red band of brush.
    const png = new PNG(IMAGE);
    for (let y = 40; y < 90; y++)
      for (let x = 500; x < 700; x++) png.data.set([255, 0, 0, 255], (y * IMAGE.width + x) * 4);
    const brushDataUrl = await uploadBrushLayer(server, taskId, PNG.sync.write(png));
    const ring = { region: square(110, 110, 390, 290), holes: [square(160, 160, 340, 240)] };
    await api('POST', `/v2/annotate/${taskId}?nextStage=true`, {
      answer: { tools: [{ schemaId: 'field', objectId: 'ring', segmentation: { zones: [ring] } }] },
      brushDataUrl,
    });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  const open = async (key: string) => {
    const context = await newContext(browser, server.url);
    page = await context.newPage();
    errors = pageErrors(page);
    await signInWithKey(page, key);
  };

  it('the task page draws the brush layer and the zone with its hole empty', async () => {
    await open(server.ownerKey);
    await page.goto(`/projects/${project}/tasks/${taskId}`);
    await page.getByRole('img', { name: 'The image with 1 objects and a brush layer' }).waitFor();
    await expect.poll(() => red([600, 60]), { timeout: 10_000 }).toBe(true);
    expect(await red([450, 60])).toBe(false);
    expect(await tinted([130, 220])).toBe(true);
    await screenshot(page, 'console-task-masks');
    expect(await tinted([250, 220])).toBe(false);
    expect(await tinted([450, 220])).toBe(false);
    await screenshot(page, 'console-task-masks');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a review issue raised on the zone keeps the clicked point on the mask, and the task page pins it there', async () => {
    await open(reviewerKey);
    expect(await startStage(page, 'Review', 'Plots')).toBe(taskId);
    await canvasView(page);
    await page.getByRole('button', { name: 'Raise an issue' }).click();
    await clickAt(page, [130, 220]);
    const form = page.getByRole('form', { name: 'New issue' });
    await form.getByText(/New issue on Field/).waitFor();
    await form.getByLabel('What is wrong').fill('The field goes past the fence');
    await form.getByRole('button', { name: 'Save issue' }).click();
    await page.getByText('Issues (1 open)').waitFor();
    await screenshot(page, 'editor-review-issue-on-mask');
    const { issues } = await api('GET', `/v2/issues?labelTask=${taskId}`);
    const issue = (issues as Json[])[0]!;
    expect(issue.objectId).toBe('ring');
    const [px, py] = JSON.parse(issue.position as string) as Vec;
    expect(Math.abs(px - 130) + Math.abs(py - 220)).toBeLessThanOrEqual(2);
    expect(errors).toEqual([]);
    await page.context().close();

    await open(server.ownerKey);
    await page.goto(`/projects/${project}/tasks/${taskId}`);
    await page.getByRole('img', { name: /and a brush layer/ }).waitFor();
    await expect.poll(() => red([600, 60]), { timeout: 10_000 }).toBe(true);
    await screenshot(page, 'console-task-mask-pin');
    expect(errors).toEqual([]);
  });
});
