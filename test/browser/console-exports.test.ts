import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzip } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { callApi, type Json } from './helpers/api.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { signInAsOwner } from './helpers/sign-in.js';

/*
 * The Exports page (/projects/:id/exports) in a real browser: filters chosen by clicks and
 * typing, the export run, the zip downloaded through the page's link and read with a real
 * unzip library, the project's list of exports (kept by the server), and a server error shown
 * on its field. What other roles see is test/browser/console-roles.test.ts's.
 */

const engine = ENGINES[0] ?? 'sqlite';
interface Item {
  externalId: string;
  batches: string[];
  task: { stage: string; stageHistory?: unknown[] };
}

describe('the Exports page', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let projectId: string;

  /** A setup call that must succeed: answers the envelope's data. */
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await callApi(server, method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.data;
  };

  /** Clicks the page's download link and answers the zip's one entry. */
  async function download(): Promise<{ name: string; text: string }> {
    const link = page.getByRole('link', { name: /^Download the export \(zip of (tasks|issues)\.n?d?json\)$/ });
    await link.waitFor();
    const [file] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(file.suggestedFilename()).toMatch(/\.zip$/);
    const entries = await unzip(fs.readFileSync(await file.path()));
    expect(entries).toHaveLength(1);
    return entries[0]!;
  }

  const run = async () => {
    await page.getByRole('button', { name: 'Run export' }).click();
    await page.getByText('The export is ready.').waitFor();
  };

  beforeAll(async () => {
    server = await startConsoleServer(engine);
    browser = await launchBrowser();
    const made = await api('POST', '/v2/project', { name: 'Street exports' });
    projectId = (made.project as Json)._id as string;
    await api('POST', `/v2/project/${projectId}`, {
      stages: [
        { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
        { id: 'Label', type: 'Label', name: 'Labeling', next: ['Done'] },
        { id: 'Parked', type: 'Hold', name: 'Parked', next: ['Done'] },
        { id: 'Done', type: 'Complete', name: 'Done', next: [] },
      ],
    });
    await api('POST', `/v2/batches/${projectId}`, { batches: 'January' });
    await api('POST', `/v2/project/${projectId}/cloud?batches=${encodeURIComponent('["January"]')}`, {
      assets: [
        { data: 'https://example.com/a.jpg', externalId: 'a.jpg' },
        { data: 'https://example.com/b.jpg', externalId: 'b.jpg' },
      ],
    });
    await api('POST', `/v2/project/${projectId}/cloud`, {
      assets: [{ data: 'https://example.com/c.jpg', externalId: 'c.jpg' }],
    });
    await api('POST', `/v2/project/${projectId}/requeueTasks`, {
      toStageId: 'Done',
      filters: { externalIds: ['c.jpg'] },
    });

    const context = await newContext(browser, server.url);
    page = await context.newPage();
    await signInAsOwner(page, server);
    errors = pageErrors(page);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lists the stages along the flow: Done before Parked, which is stored before it but no route reaches', async () => {
    await page.goto(`/projects/${projectId}/exports`);
    const stages = page.getByRole('group', { name: 'Stages (none checked: every stage)' });
    await stages.getByRole('checkbox').first().waitFor();
    const labels = await stages.locator('label').allTextContents();
    expect(labels).toEqual(['Start (Start)', 'Labeling (Label)', 'Done (Complete)', 'Parked (Hold)']);
    // Top to bottom on the screen too.
    const tops = await Promise.all(
      (await stages.getByRole('checkbox').all()).map(async (b) => (await b.boundingBox())?.y),
    );
    expect(tops).toEqual([...tops].sort((a, b) => (a ?? 0) - (b ?? 0)));
    await screenshot(page, 'console-exports-flow-order');
  });

  it('exports the tasks of one stage as NDJSON and downloads the zip', async () => {
    await page.goto(`/projects/${projectId}/exports`);
    await page.getByRole('heading', { name: 'Exports', exact: true }).waitFor();
    await page.getByText('No export yet.').waitFor();
    await page.getByLabel('Labeling (Label)').check();
    await page.getByLabel('Format').selectOption('ndjson');
    await page.getByLabel('The stage history (every pass through a stage, with its answer)').uncheck();
    await run();
    const entry = await download();
    expect(entry.name).toMatch(/\.ndjson$/);
    const lines = entry.text.split('\n').filter(Boolean);
    const items = lines.map((l) => JSON.parse(l) as Item);
    expect(items.map((i) => i.externalId).sort()).toEqual(['a.jpg', 'b.jpg']);
    for (const i of items) {
      expect(i.task.stage).toBe('Labeling');
      expect(i.batches).toEqual(['January']);
      expect(i.task.stageHistory).toBeUndefined();
    }
    await page.getByRole('row').filter({ hasText: 'tasks · NDJSON · stages Labeling · no history' }).waitFor();
  });

  it('exports the completed tasks as JSON, and nothing for a date range before they existed', async () => {
    await page.getByRole('button', { name: 'Clear the filters' }).click();
    expect(await page.getByLabel('Labeling (Label)').isChecked()).toBe(false);
    await page.getByLabel('Status').selectOption('Completed');
    await run();
    const entry = await download();
    expect(entry.name).toMatch(/\.json$/);
    const items = JSON.parse(entry.text) as Item[];
    expect(items.map((i) => i.externalId)).toEqual(['c.jpg']);
    expect(items[0]?.task.stage).toBe('Done');
    expect(items[0]?.task.stageHistory?.length).toBeGreaterThan(0);

    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Created to', { exact: true }).fill('2001-01-31');
    await run();
    expect(JSON.parse((await download()).text)).toEqual([]);
    await page.getByLabel('Created to', { exact: true }).fill('');
    await page.getByLabel('Created from', { exact: true }).fill(new Date().toISOString().slice(0, 10));
    await run();
    expect((JSON.parse((await download()).text) as Item[]).map((i) => i.externalId).sort()).toEqual([
      'a.jpg',
      'b.jpg',
      'c.jpg',
    ]);
    await screenshot(page, 'console-exports');

    // The exports are the project's, kept by the server: listed newest first after a reload, and
    // the same list answers any Manager over the API.
    await page.reload();
    const made = page.getByRole('region', { name: 'Exports of this project' });
    await made.getByRole('row').nth(4).waitFor();
    expect(await made.getByRole('link', { name: /^Download the zip of the export made/ }).count()).toBe(4);
    await made.getByRole('row').filter({ hasText: 'tasks · JSON · status Completed' }).waitFor();
    const history = await api('GET', `/v2/project/${projectId}/exports`);
    expect(history.total).toBe(4);
    const records = history.exports as Json[];
    expect(records.map((r) => r.createdBy)).toEqual(Array(4).fill(server.ownerEmail));
    expect(records[3]).toMatchObject({ type: 'task', format: 'ndjson', filters: { stage: '["Label"]' } });
    // Its link is the one the page offered: it downloads the same zip.
    const res = await fetch(String(records[0]?.exportPath));
    expect(res.headers.get('content-type')).toBe('application/zip');
  });

  it('shows the server’s error on the field it names', async () => {
    await page.goto(`/projects/${projectId}/exports`);
    await page.getByLabel('Parked (Hold)').check();
    // Meanwhile someone removes the stage from the workflow: the page still offers it.
    await api('POST', `/v2/project/${projectId}`, {
      stages: [
        { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
        { id: 'Label', type: 'Label', name: 'Labeling', next: ['Done'] },
        { id: 'Done', type: 'Complete', name: 'Done', next: [] },
      ],
    });
    await page.getByRole('button', { name: 'Run export' }).click();
    const stages = page.getByRole('group', { name: 'Stages (none checked: every stage)' });
    await stages.getByRole('alert').waitFor();
    expect(await stages.getByRole('alert').textContent()).toContain('no stage "Parked" in this project');
    await screenshot(page, 'console-exports-error');
    const unexpected = errors.filter(
      (e) => !/^Failed to load resource: the server responded with a status of 400/.test(e),
    );
    expect(unexpected).toEqual([]);
  });
});
