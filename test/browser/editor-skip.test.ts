import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';

/*
 * Skip in the editor: on a project with `taskSkipEnabled`, a labeler clicks Skip and the next
 * task of the stage opens; Alt+S does the same. The skipped task stays in Label, assigned to the
 * labeler (no `unassignSkippedTask`), with a skip in its history; when only skipped tasks are
 * left, /next hands back the oldest of them.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, unknown>;

describe('skipping in the editor', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let context: BrowserContext | undefined;
  let labelerKey = '';
  let pid = '';
  let errors: string[] = [];

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };
  const taskIdIn = (page: Page) => /\/work\/tasks\/([^/?]+)/.exec(page.url())?.[1] ?? '';
  const historyOf = async (id: string) => (await api('GET', `/v2/task/${id}/history`)).taskHistory as Json[];

  beforeAll(async () => {
    assets = await serveAssets({
      '/one.png': { type: 'image/png', body: streetPng(400, 300) },
      '/two.png': { type: 'image/png', body: streetPng(400, 300) },
    });
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('skipper@example.com');
    pid = ((await api('POST', '/v2/project', { name: 'Skippable' })).project as Json)._id as string;
    await api('POST', `/v2/project/${pid}`, {
      taskSkipEnabled: true,
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
    await api('POST', `/v2/project/${pid}/assigned`, { assignees: ['skipper@example.com'], role: 'Labeler' });
    await api('POST', `/v2/project/${pid}/cloud`, {
      assets: [
        { data: `${assets.url}/one.png`, externalId: 'one' },
        { data: `${assets.url}/two.png`, externalId: 'two' },
      ],
    });
    await api('POST', `/v2/project/${pid}/updatePriority`, { priority: 10, filters: { externalIds: ['one'] } });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  it('Skip opens the next task; Alt+S skips too; the skipped task stays assigned in Label', async () => {
    context = await newContext(browser, server.url);
    const page = await context.newPage();
    await page.goto('/signin');
    await page.getByRole('button', { name: 'Use an API key instead' }).click();
    await page.getByLabel('API key').fill(labelerKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/signin');
    errors = pageErrors(page);

    await page.goto('/work');
    await page.getByRole('button', { name: 'Start Label in Skippable' }).click();
    await page.waitForURL(/\/work\/tasks\//);
    const first = taskIdIn(page);
    const skipButton = page.getByRole('button', { name: 'Skip', exact: true });
    await skipButton.waitFor();
    expect(await skipButton.getAttribute('aria-keyshortcuts')).toBe('Alt+S');
    await page.getByRole('toolbar', { name: 'Drawing tools' }).waitFor();
    await screenshot(page, 'editor-skip');

    await skipButton.click();
    await page.waitForURL((url) => !url.pathname.endsWith(first));
    const second = taskIdIn(page);
    expect(second).not.toBe('');
    expect((await api('GET', `/v2/task/${first}`)).task).toMatchObject({
      externalId: 'one',
      stage: 'Label',
      assignee: 'skipper@example.com',
    });
    expect(await historyOf(first)).toMatchObject([
      { stageId: 'Label', isSkipped: true, trigger: 'skip', completedBy: 'skipper@example.com' },
    ]);

    // The keyboard: Alt+S on the second task. Only skipped tasks are left: the first comes back.
    await page.getByRole('toolbar', { name: 'Drawing tools' }).waitFor();
    // The page takes keys again once the first skip has finished (one action at a time).
    await expect.poll(() => skipButton.isEnabled()).toBe(true);
    await page.keyboard.press('Alt+s');
    await page.waitForURL((url) => url.pathname.endsWith(first));
    expect(await historyOf(second)).toMatchObject([{ isSkipped: true, trigger: 'skip' }]);
    await skipButton.waitFor();
    expect(errors).toEqual([]);
  });

  it('? opens the list of keys, with the tools of the project; Escape closes it', async () => {
    const page = await (context as BrowserContext).newPage();
    errors = pageErrors(page);
    await page.goto('/work');
    await page.getByRole('button', { name: 'Start Label in Skippable' }).click();
    await page.getByRole('toolbar', { name: 'Drawing tools' }).waitFor();
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    expect(await help.isVisible()).toBe(false);

    await page.keyboard.press('?');
    await help.waitFor();
    const rows = await help.getByRole('row').allInnerTexts();
    expect(rows).toContain('1\tCar tool');
    expect(rows).toContain('Ctrl+Z\tundo');
    expect(rows).toContain('Alt+S\tskip the task (Label tasks, when the project allows skipping)');
    await screenshot(page, 'editor-help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });

    // The toolbar's button opens it too; Close shuts it.
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    await help.waitFor();
    await help.getByRole('button', { name: 'Close' }).click();
    await help.waitFor({ state: 'hidden' });
    expect(errors).toEqual([]);
  });
});
