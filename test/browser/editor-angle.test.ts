import { execFileSync } from 'node:child_process';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets } from './helpers/editor-assets.js';
import { clickAt, signInWithKey, startStage } from './helpers/editor-page.js';

/*
 * The angle tool with a real mouse: on a picture of a triangle PIL draws here, three clicks on
 * its corners (the vertex first) store the vertex, both arms and the angle, within half a degree
 * of the triangle's own; the angle is shown in degrees beside the vertex while it is drawn and
 * once it is selected.
 */

const engine = ENGINES[0] ?? 'sqlite';
const CORNERS = { vertex: [100, 400], p1: [500, 400], p2: [400, 100] } as const;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const triangle = execFileSync('/usr/bin/python3', [
  '-c',
  `import io, sys
from PIL import Image, ImageDraw
image = Image.new('RGB', (640, 480), (245, 245, 240))
ImageDraw.Draw(image).polygon([${Object.values(CORNERS)
    .map(([x, y]) => `(${x}, ${y})`)
    .join(', ')}], outline=(20, 20, 20), width=3)
out = io.BytesIO(); image.save(out, 'PNG'); sys.stdout.buffer.write(out.getvalue())`,
]);

describe('the angle tool', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let context: BrowserContext;
  let labelerKey = '';

  beforeAll(async () => {
    assets = await serveAssets({ '/triangle.png': { type: 'image/png', body: triangle } });
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('labeler@example.com');
    const api = async (method: string, url: string, body: unknown) => {
      const res = await server.call(method, url, { body });
      expect(res.statusCode, res.body).toBeLessThan(300);
      return res.json().data as Json;
    };
    const pid = (await api('POST', '/v2/project', { name: 'Angles' })).project._id as string;
    await api('POST', `/v2/project/${pid}`, {
      categorySchema: {
        tools: [{ schemaId: 'joint', title: 'Joint', tool: 'angle', color: '#1570ef', shortcutKey: 'a' }],
        classifications: [],
      },
    });
    await api('POST', `/v2/project/${pid}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    await api('POST', `/v2/project/${pid}/cloud`, { assets: [{ data: `${assets.url}/triangle.png` }] });
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  it("measures a triangle's corner within half a degree", async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    const taskId = await startStage(page, 'Label', 'Angles');
    await page.getByRole('toolbar', { name: 'Drawing tools' }).waitFor();
    await page.keyboard.press('a');
    await expect.poll(() => page.getByRole('button', { name: 'Joint tool' }).getAttribute('aria-pressed')).toBe('true');
    await clickAt(page, [...CORNERS.vertex]);
    await clickAt(page, [...CORNERS.p1]);
    await clickAt(page, [...CORNERS.p2]);
    await page.getByRole('button', { name: 'Joint 1', exact: true }).click();
    await screenshot(page, 'editor-angle');

    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const task = (await server.call('GET', `/v2/task/${taskId}`)).json().data.task as Json;
    const joint = task.answer.tools[0].angle as Json;
    // The triangle's corner at the vertex, from its sides' directions.
    const direction = ([x, y]: readonly number[]) => Math.atan2(y! - CORNERS.vertex[1], x! - CORNERS.vertex[0]);
    const truth = (Math.abs(direction(CORNERS.p1) - direction(CORNERS.p2)) * 180) / Math.PI;
    expect(truth).toBeCloseTo(45, 5);
    expect(Math.abs(joint.angle - truth)).toBeLessThanOrEqual(0.5);
    for (const key of ['vertex', 'p1', 'p2'] as const) {
      const [x, y] = joint[key] as [number, number];
      expect(Math.hypot(x - CORNERS[key][0], y - CORNERS[key][1])).toBeLessThanOrEqual(1.5);
    }
    expect(errors).toEqual([]);
  });
});
