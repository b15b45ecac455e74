import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import { signInAsOwner } from './helpers/sign-in.js';

/*
 * An image whose header the server may not read (its host is on the loopback address, which
 * storages may not reach by default): the Assets page says why its size is unknown, and the
 * editor, which decodes the image anyway, fills the size when the task is opened; the warning
 * is then gone.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("an image's size the server could not read", () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let context: BrowserContext;
  let pid = '';
  let taskId = '';

  const asset = async () =>
    (await server.call('GET', `/v2/project/${pid}/assets`)).json().data.assets[0] as Json | undefined;

  beforeAll(async () => {
    assets = await serveAssets({ '/yard.png': { type: 'image/png', body: streetPng(720, 405) } });
    server = await startConsoleServer(engine, { worker: true, env: { ANNOTARY_READ_ASSET_HEADERS: 'true' } });
    pid = (await server.call('POST', '/v2/project', { body: { name: 'Yards' } })).json().data.project._id as string;
    await server.call('POST', `/v2/project/${pid}`, {
      body: {
        categorySchema: { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box' }], classifications: [] },
      },
    });
    const res = await server.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: `${assets.url}/yard.png`, externalId: 'yard.png' }] },
    });
    taskId = res.json().data.assets[0].taskId as string;
    await waitFor(async () => (await asset())?.mediaWarning, 'the header read to be refused', 15_000, 250);
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  it('says why on the Assets page, and the editor fills it', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInAsOwner(page, server, `/projects/${pid}/assets`);
    const warning = page.getByText(/^Its size could not be read: refused: 127\.0\.0\.1 is not a public address/);
    await warning.waitFor();
    await screenshot(page, 'console-assets-size-warning');

    await page.goto(`/work/tasks/${taskId}`);
    await page.getByTestId('editor-canvas').waitFor();
    await waitFor(async () => (await asset())?.metadata?.width, 'the editor to fill the size', 15_000, 250);
    const filled = await asset();
    expect(filled?.metadata).toEqual({ width: 720, height: 405 });
    expect(filled?.mediaWarning).toBeNull();

    await page.goto(`/projects/${pid}/assets`);
    await page.getByRole('cell', { name: 'yard.png', exact: true }).waitFor();
    expect(await warning.count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
