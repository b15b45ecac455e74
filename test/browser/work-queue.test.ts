import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import { signInAsOwner } from './helpers/sign-in.js';

/*
 * The work queue's counts for a Labeler: with the project's "Show labelers how many tasks wait"
 * (queueCountsEnabled) on, as it is by default, the Labeler's row says how many tasks wait; Start takes one, and back
 * on the queue the count is one lower with one assigned to them. The manager turns the setting
 * off on the settings page: the Labeler then sees only the tasks assigned to them.
 */

const engine = ENGINES[0] ?? 'sqlite';
const LABELER = 'counted@example.com';
type Json = Record<string, unknown>;

describe('the work queue counts for a Labeler', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let labelerKey = '';
  let pid = '';

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };
  const page = async (): Promise<Page> => {
    const context = await newContext(browser, server.url);
    contexts.push(context);
    return context.newPage();
  };
  const countsCell = (p: Page) => p.getByRole('row').filter({ hasText: 'Counted' }).getByRole('cell').nth(3);

  beforeAll(async () => {
    assets = await serveAssets({ '/street.png': { type: 'image/png', body: streetPng(400, 300) } });
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser(LABELER);
    pid = ((await api('POST', '/v2/project', { name: 'Counted' })).project as Json)._id as string;
    // queueCountsEnabled is left unset: Labelers see the count by default.
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
      assets: ['a', 'b', 'c'].map((id) => ({ data: `${assets.url}/street.png`, externalId: id })),
    });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  it('shows how many wait, one fewer after Start; none once the manager turns it off', async () => {
    const labeler = await page();
    await labeler.goto('/signin');
    await labeler.getByRole('button', { name: 'Use an API key instead' }).click();
    await labeler.getByLabel('API key').fill(labelerKey);
    await labeler.getByRole('button', { name: 'Sign in' }).click();
    await labeler.waitForURL((url) => url.pathname !== '/signin');
    const errors = pageErrors(labeler);

    await labeler.getByRole('banner').getByRole('link', { name: 'Work' }).click();
    await expect.poll(() => countsCell(labeler).textContent()).toBe('3 waiting');

    await labeler.getByRole('button', { name: 'Start Label in Counted' }).click();
    await labeler.waitForURL(/\/work\/tasks\//);
    await labeler.getByRole('toolbar', { name: 'Drawing tools' }).waitFor();
    // The queue read in another tab while the task stays open in the editor (leaving the editor
    // would give the untouched task back).
    const queue = await labeler.context().newPage();
    await queue.goto('/work');
    await expect.poll(() => countsCell(queue).textContent()).toBe('2 waiting1 assigned to you');
    await screenshot(queue, 'work-queue-labeler-counts');

    // The manager turns the setting off on the project's settings page.
    const manager = await page();
    await signInAsOwner(manager, server, `/projects/${pid}/settings`);
    const toggle = manager.getByLabel('Show labelers how many tasks wait');
    expect(await toggle.isChecked()).toBe(true);
    await toggle.click();
    await manager.getByRole('button', { name: 'Save settings' }).click();
    await manager.getByText('Settings saved.').waitFor();
    expect(((await api('GET', `/v2/project/${pid}`)).project as Json).queueCountsEnabled).toBe(false);
    await screenshot(manager, 'project-settings-queue-counts');

    await queue.reload();
    await expect.poll(() => countsCell(queue).textContent()).toBe('1 assigned to you');
    expect(await countsCell(queue).textContent()).not.toContain('waiting');
    await screenshot(queue, 'work-queue-labeler-no-counts');
    expect(errors).toEqual([]);
  });
});
