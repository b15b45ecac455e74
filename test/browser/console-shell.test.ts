import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';

// The console is the same on both engines; its browser tests run on the first one configured.
const engine = ENGINES[0] ?? 'sqlite';

describe('the console is served at /', () => {
  let server: ConsoleServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startConsoleServer(engine);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('loads in a real browser with no page errors', async () => {
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    const errors = pageErrors(page);
    await page.goto('/');
    await expect(page.getByRole('link', { name: 'Annotary' }).isVisible()).resolves.toBe(true);
    await screenshot(page, 'console-shell');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('revalidates the page and caches hashed files for a year', async () => {
    const page = await fetch(`${server.url}/projects/abc`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${server.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  });

  it('leaves the API its own 404 envelope', async () => {
    const res = await fetch(`${server.url}/v2/no-such-thing`, { headers: { apikey: server.ownerKey } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 'fail' });
  });
});
