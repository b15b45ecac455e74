import type { Browser } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { apiAs } from './helpers/project-data.js';
import { signInAsOwner } from './helpers/sign-in.js';

// The console is the same on both engines; its browser tests run on the first one configured.
const engine = ENGINES[0] ?? 'sqlite';

const DAY = 24 * 60 * 60 * 1000;

describe('the console is served at /', () => {
  let server: ConsoleServer;
  let browser: Browser;
  /** The server's clock, steered so that a project can be made days ago. */
  const clock = { ago: 0, now: () => Date.now() - clock.ago };
  beforeAll(async () => {
    server = await startConsoleServer(engine, { clock });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('loads in a real browser with no page errors', async () => {
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    // Collected from the start: the sign-in page logs nothing either (docs/console.md, choices).
    const errors = pageErrors(page);
    await signInAsOwner(page, server);
    await page.goto('/');
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    await expect(page.getByRole('link', { name: 'Annotary' }).isVisible()).resolves.toBe(true);
    await screenshot(page, 'console-shell');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('tells projects of the same name apart in the project switcher', async () => {
    const owner = apiAs(server);
    const make = async (name: string, daysAgo: number) => {
      clock.ago = daysAgo * DAY;
      const { project } = await owner<{ project: { _id: string } }>('POST', '/v2/project', { name });
      clock.ago = 0;
      return project._id;
    };
    const older = await make('Street scenes', 3);
    const newer = await make('Street scenes', 0);
    const signsA = await make('Signs', 0);
    const signsB = await make('SIGNS', 0);
    await make('Harbour', 0);
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    await signInAsOwner(page, server, `/projects/${older}/workflow`);
    const errors = pageErrors(page);
    const switcher = page.getByRole('combobox', { name: 'Project', exact: true });
    const options = switcher.getByRole('option');
    await expect.poll(() => options.count()).toBe(6);
    // What a screen reader says for each: the name, and what tells it from its namesakes.
    const names = await options.evaluateAll((all) => all.map((o) => (o as unknown as { label: string }).label));
    expect(new Set(names).size).toBe(6);
    const labelOf = (id: string) =>
      switcher.locator(`option[value="${id}"]`).evaluate((o) => (o as unknown as { label: string }).label);
    const day = (ago: number) =>
      new Date(Date.now() - ago * DAY).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
    expect(await labelOf(older)).toBe(`Street scenes · created ${day(3)}`);
    expect(await labelOf(newer)).toBe(`Street scenes · created ${day(0)}`);
    // Made the same day: the end of the id tells them apart (the same as the end of its address).
    expect(await labelOf(signsA)).toBe(`Signs · created ${day(0)} · #${signsA.slice(-6)}`);
    expect(await labelOf(signsB)).toBe(`SIGNS · created ${day(0)} · #${signsB.slice(-6)}`);
    expect(
      await switcher
        .locator('option', { hasText: 'Harbour' })
        .evaluate((o) => (o as unknown as { label: string }).label),
    ).toBe('Harbour');
    // Opened as a person opens it, the list names each one apart (the accessible names getByRole
    // matches), and a click on one opens that project.
    await switcher.click();
    const choice = page.getByRole('option', { name: `Street scenes · created ${day(0)}`, exact: true });
    await choice.waitFor();
    expect(await page.getByRole('option', { name: /^Street scenes/ }).count()).toBe(2);
    await screenshot(page, 'console-switcher-namesakes');
    await choice.click();
    // The project opens where its caller starts: a Manager of a new project on its checklist.
    await page.waitForURL(`**/projects/${newer}/setup`);
    await expect.poll(() => switcher.inputValue()).toBe(newer);
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
    expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
    // Conditional requests and HEAD, as a browser revalidating its cache sends them.
    const etag = asset.headers.get('etag');
    expect(etag).toBeTruthy();
    // (fetch marks a conditional request no-cache, which asks for the whole file again.)
    const again = await request(`${server.url}${script}`, { headers: { 'if-none-match': etag ?? '' } });
    await again.body.dump();
    expect(again.statusCode).toBe(304);
    const head = await fetch(`${server.url}${script}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await head.text()).toBe('');
    const part = await fetch(`${server.url}${script}`, { headers: { range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect((await part.arrayBuffer()).byteLength).toBe(10);
    // A file outside the hashed folder is revalidated; one that is not there is the API's 404.
    const top = await fetch(`${server.url}/index.html`);
    expect(top.status).toBe(200);
    expect(top.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
    const missing = await fetch(`${server.url}/assets/no-such-file.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: 'fail' });
  });

  it('leaves the API its own 404 envelope', async () => {
    const res = await fetch(`${server.url}/v2/no-such-thing`, { headers: { apikey: server.ownerKey } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 'fail' });
  });
});
