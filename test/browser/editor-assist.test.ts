import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AssistPlugin, startAssistPlugin } from '../helpers/assist-plugin.js';
import { zonesArea } from '../helpers/rings.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import { clickAt, dragFrom, signInWithKey, startStage, type Vec } from './helpers/editor-page.js';

/*
 * Assist with a real mouse and keyboard: the organization's plugin (a region-growing one of the
 * test's own on 127.0.0.1) answers a candidate for the labeler's clicks, shown over the image; it
 * is accepted into a segmentation object whose zones cover the clicked block within 1 %, or
 * painted into the brush layer in the class's colour, refined with a click outside, or dropped.
 */

const engine = ENGINES[0] ?? 'sqlite';
const IMAGE = { width: 800, height: 600 };
/** The dark red block of the picture: x 100..300, y 80..200. */
const BLOCK = 200 * 120;
type Json = Record<string, unknown>;
type Zones = { region: Vec[]; holes: Vec[][] }[];

/** Clicks reach the plugin in whole pixels, within a pixel of the image point aimed at. */
function near(got: number[][], want: Vec[]) {
  expect(got).toHaveLength(want.length);
  got.forEach((p, i) => {
    expect(p.every(Number.isInteger)).toBe(true);
    expect(Math.abs(p[0]! - want[i]![0])).toBeLessThanOrEqual(1);
    expect(Math.abs(p[1]! - want[i]![1])).toBeLessThanOrEqual(1);
  });
}

describe('Assist in the image editor', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let plugin: AssistPlugin;
  let browser: Browser;
  let page: Page;
  let errors: string[] = [];
  let taskId = '';

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };
  const status = () => page.getByRole('group', { name: 'Assist' }).getByRole('status');

  beforeAll(async () => {
    assets = await serveAssets({ '/field.png': { type: 'image/png', body: streetPng(IMAGE.width, IMAGE.height) } });
    plugin = await startAssistPlugin('grow-secret');
    server = await startConsoleServer(engine, { env: { ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    const labelerKey = await server.addUser('labeler@example.com');
    await api('POST', '/v2/plugins', { name: 'Grower', url: plugin.url, secret: 'grow-secret', assistUrl: plugin.url });
    const project = ((await api('POST', '/v2/project', { name: 'Assisted' })).project as Json)._id as string;
    await api('POST', `/v2/project/${project}`, {
      categorySchema: {
        tools: [
          { schemaId: 'roof', title: 'Roof', tool: 'segmentation', color: '#00a000', shortcutKey: 's', multiple: true },
          { schemaId: 'crop', title: 'Crop', tool: 'brush', color: '#ff0000', shortcutKey: 'b' },
        ],
        classifications: [],
      },
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
    taskId = await startStage(page, 'Label', 'Assisted');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await plugin?.close();
    await assets?.close();
  });

  it('accepts a candidate into a segmentation object whose zones cover the clicked block', async () => {
    await page.getByRole('button', { name: 'Roof tool' }).click();
    await page.getByRole('button', { name: 'Assist' }).click();
    await expect.poll(() => status().textContent()).toMatch(/Click inside the object/);
    await clickAt(page, [200, 140]);
    await expect.poll(() => status().textContent()).toMatch(/Candidate: 1 zone/);
    // Refined with a click outside (the sky): asked again with both points, the block stays.
    await page.keyboard.down('Alt');
    await clickAt(page, [450, 40]);
    await page.keyboard.up('Alt');
    await expect.poll(() => plugin.calls.length).toBe(2);
    await expect.poll(() => status().textContent()).toMatch(/Candidate: 1 zone/);
    const refined = plugin.calls[1]!.body;
    expect(refined).toMatchObject({ taskId, schemaId: 'roof', tool: 'segmentation' });
    near(refined.positive, [[200, 140]]);
    near(refined.negative, [[450, 40]]);
    await screenshot(page, 'editor-assist-candidate');
    await page.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => page.getByRole('button', { name: /^Roof \d/ }).count()).toBe(1);
    await expect.poll(() => status().textContent()).toMatch(/Click inside the object/);
  });

  it('drags a box, drops a candidate, and paints an accepted one into the brush layer', async () => {
    await page.getByRole('button', { name: 'Crop tool' }).click();
    await page.getByRole('button', { name: 'Assist', exact: true }).click();
    await clickAt(page, [450, 40]);
    await expect.poll(() => status().textContent()).toMatch(/Candidate/);
    await page.getByRole('button', { name: 'Drop' }).click();
    await expect.poll(() => status().textContent()).toMatch(/Click inside the object/);

    // A box around the block's left half, then a click inside: the mask is cut to the box.
    await page.getByRole('button', { name: 'Box', exact: true }).click();
    await dragFrom(page, [100, 80], [200, 200]);
    await clickAt(page, [150, 140]);
    await expect.poll(() => status().textContent()).toMatch(/Candidate: 1 zone/);
    const boxed = plugin.calls.at(-1)!.body;
    expect(boxed.tool).toBe('brush');
    near(boxed.positive, [[150, 140]]);
    const box = boxed.box!;
    near(
      [box.slice(0, 2), box.slice(2)],
      [
        [100, 80],
        [200, 200],
      ],
    );
    await screenshot(page, 'editor-assist-brush-candidate');
    await page.keyboard.press('Enter');
    await expect.poll(() => status().textContent()).toMatch(/Click inside the object/);

    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const task = (await api('GET', `/v2/task/${taskId}`)).task as Json;
    const roof = ((task.answer as Json).tools as Json[]).filter((t) => t.schemaId === 'roof');
    expect(roof).toHaveLength(1);
    const zones = (roof[0]!.segmentation as { zones: Zones }).zones;
    expect(zones).toHaveLength(1);
    expect(Math.abs(zonesArea(zones) - BLOCK) / BLOCK).toBeLessThan(0.01);

    // The brush layer: the class's colour over the boxed half of the block, transparent elsewhere.
    const layer = PNG.sync.read(Buffer.from(await (await fetch(task.brushDataUrl as string)).arrayBuffer()));
    expect([layer.width, layer.height]).toEqual([IMAGE.width, IMAGE.height]);
    const rgba = ([x, y]: Vec) => [...layer.data.subarray((y * layer.width + x) * 4, (y * layer.width + x) * 4 + 4)];
    expect(rgba([150, 140])).toEqual([255, 0, 0, 255]);
    expect(rgba([250, 140])[3]).toBe(0);
    expect(rgba([450, 40])[3]).toBe(0);
    let painted = 0;
    for (let i = 3; i < layer.data.length; i += 4) if (layer.data[i]) painted++;
    // What the plugin answered: the block cut to the box sent (whole pixels, within one of the drag's).
    expect(painted).toBe(
      (Math.min(box[2], 300) - Math.max(box[0], 100)) * (Math.min(box[3], 200) - Math.max(box[1], 80)),
    );
    expect(errors).toEqual([]);
  });
});
