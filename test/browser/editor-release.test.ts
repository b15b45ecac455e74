import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import { dragFrom } from './helpers/editor-page.js';

/*
 * The labeler's place in the stage and leaving it: the editor says "Task 1 of 4", Submit says
 * what it did and the count goes on ("Task 2 of 4"); "Release and leave" gives the task back and
 * opens the work queue; a reload keeps the task; going to another console page or closing the tab
 * gives an untouched task back to the stage.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, unknown>;
const LABELER = 'leaver@example.com';

describe('queue position and release in the editor', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let context: BrowserContext | undefined;
  let labelerKey = '';
  let pid = '';

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };
  const taskIdIn = (page: Page) => /\/work\/tasks\/([^/?]+)/.exec(page.url())?.[1] ?? '';
  const assigneeOf = async (id: string) => ((await api('GET', `/v2/task/${id}`)).task as Json).assignee;
  const start = async (page: Page) => {
    await page.goto('/work');
    await page.getByRole('button', { name: 'Start Label in Leaving' }).click();
    await page.waitForURL(/\/work\/tasks\//);
    await page.getByRole('toolbar', { name: 'Drawing tools' }).waitFor();
    return taskIdIn(page);
  };

  beforeAll(async () => {
    const files: Record<string, { type: string; body: Buffer }> = {};
    for (const name of ['a', 'b', 'c', 'd']) files[`/${name}.png`] = { type: 'image/png', body: streetPng(400, 300) };
    assets = await serveAssets(files);
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser(LABELER);
    pid = ((await api('POST', '/v2/project', { name: 'Leaving' })).project as Json)._id as string;
    await api('POST', `/v2/project/${pid}`, {
      categorySchema: {
        tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#d92d20' }],
        classifications: [],
      },
      stages: [
        { id: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Complete'] },
        { id: 'Complete', type: 'Complete', next: [] },
      ],
    });
    await api('POST', `/v2/project/${pid}/assigned`, { assignees: [LABELER], role: 'Labeler' });
    await api('POST', `/v2/project/${pid}/cloud`, {
      assets: ['a', 'b', 'c', 'd'].map((name) => ({ data: `${assets.url}/${name}.png`, externalId: name })),
    });
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
    const page = await context.newPage();
    await page.goto('/signin');
    await page.getByRole('button', { name: 'Use an API key instead' }).click();
    await page.getByLabel('API key').fill(labelerKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/signin');
    await page.close();
  }, 120_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  it('counts "Task 1 of 4", confirms a submit, and Release and leave gives the task back', async () => {
    const page = await (context as BrowserContext).newPage();
    const errors = pageErrors(page);

    const first = await start(page);
    await expect.poll(() => page.getByText('Task 1 of 4', { exact: true }).isVisible()).toBe(true);
    await screenshot(page, 'editor-queue-position');

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(first));
    const second = taskIdIn(page);
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Submitted a. This is the next task.' }).count())
      .toBe(1);
    await expect.poll(() => page.getByText('Task 2 of 4', { exact: true }).isVisible()).toBe(true);
    expect(await assigneeOf(second)).toBe(LABELER);
    await screenshot(page, 'editor-position-submitted');

    await page.getByRole('button', { name: 'Release and leave' }).click();
    await page.waitForURL((url) => url.pathname === '/work');
    await page.getByText('Released b: it waits in Label again.').waitFor();
    expect(await assigneeOf(second)).toBeNull();
    await screenshot(page, 'work-released');

    // Start again takes the released task (the oldest free one); the count starts over.
    expect(await start(page)).toBe(second);
    await expect.poll(() => page.getByText('Task 1 of 3', { exact: true }).isVisible()).toBe(true);
    expect(errors).toEqual([]);
  });

  it('keeps the task over a reload, gives it back on another console page and when the tab closes', async () => {
    const page = await (context as BrowserContext).newPage();
    const errors = pageErrors(page);
    const held = await start(page);
    expect(await assigneeOf(held)).toBe(LABELER);

    // A reload releases on the way out and takes the task back on the way in.
    await page.reload();
    await page.getByRole('toolbar', { name: 'Drawing tools' }).waitFor();
    await page.getByRole('button', { name: 'Release and leave' }).waitFor();
    expect(taskIdIn(page)).toBe(held);
    expect(await assigneeOf(held)).toBe(LABELER);

    // Another page of the console: the untouched task goes back.
    await page.getByRole('link', { name: 'Work', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/work');
    await expect.poll(() => assigneeOf(held), { interval: 500 }).toBeNull();

    // The back button returns to the task and takes it again.
    await page.goBack();
    await page.getByRole('button', { name: 'Release and leave' }).waitFor();
    expect(taskIdIn(page)).toBe(held);
    await expect.poll(() => assigneeOf(held), { interval: 500 }).toBe(LABELER);

    // Closing the tab (pagehide): released by a keepalive request with the session's CSRF token.
    expect(errors).toEqual([]);
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => assigneeOf(held), { interval: 500 }).toBeNull();
  });

  it('keeps a task the labeler changed when they leave', async () => {
    const page = await (context as BrowserContext).newPage();
    const held = await start(page);
    // A car drawn: the tool's digit, then a drag over the image.
    await page.keyboard.press('1');
    await dragFrom(page, [100, 80], [300, 200]);
    await page.getByRole('button', { name: 'Car 1', exact: true }).waitFor();
    await page.getByText(/Draft saved/).waitFor({ timeout: 15_000 });
    await page.getByRole('link', { name: 'Work', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/work');
    // Give a release the time to arrive, were one sent.
    await new Promise((r) => setTimeout(r, 500));
    expect(await assigneeOf(held)).toBe(LABELER);
    await page.close();
  });
});
