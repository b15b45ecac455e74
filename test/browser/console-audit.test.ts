import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { callApi, type Json } from './helpers/api.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { signInWithKey } from './helpers/editor-page.js';
import { signInAsOwner } from './helpers/sign-in.js';

/*
 * Organization -> Audit in a real browser: the owner's own changes (made by clicking in the
 * console and through the API) are listed with who, what and the field names; the filters narrow
 * the list; the download is the NDJSON export; a member is not offered the tab.
 */

const engine = ENGINES[0] ?? 'sqlite';

describe('the Audit tab of the Organization page', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    server = await startConsoleServer(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    browser = await launchBrowser();
    page = await (await newContext(browser, server.url)).newPage();
    await signInAsOwner(page, server);
    errors = pageErrors(page);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lists the changes with who made them and the fields, filters them, and downloads them', async () => {
    const made = await callApi(server, 'POST', '/v2/project', { name: 'Audited scenes' });
    const projectId = (made.data.project as Json)._id as string;
    await callApi(server, 'POST', `/v2/project/${projectId}`, { description: 'night shots' });
    await server.addUser('mia@example.com');
    await callApi(server, 'POST', `/v2/organization/${server.orgId}/users`, {
      users: [{ email: 'mia@example.com', organizationRole: 'admin' }],
    });

    await page.goto('/org');
    await page.getByRole('tab', { name: 'Audit' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const table = page.getByRole('table', { name: 'Audit records' });
    await table.getByRole('cell', { name: 'project.update' }).waitFor();
    // The sign-in of this browser, the project's creation and update, the role change.
    for (const op of ['session.signin', 'project.create', 'member.role']) {
      await table.getByRole('cell', { name: op, exact: true }).waitFor();
    }
    const update = table.getByRole('row').filter({ hasText: 'project.update' });
    await expect(update.getByRole('cell', { name: 'description', exact: true }).count()).resolves.toBe(1);
    await expect(update.getByRole('cell', { name: server.ownerEmail }).count()).resolves.toBe(1);
    await screenshot(page, 'audit-tab');

    await page.getByLabel('Operation').fill('project.create');
    await page.getByRole('button', { name: 'Show records' }).click();
    await table.getByRole('cell', { name: 'project.update' }).waitFor({ state: 'detached' });
    await table.getByRole('cell', { name: 'project.create' }).waitFor();
    expect(await table.getByRole('row').count()).toBe(2);
    await screenshot(page, 'audit-tab-filtered');

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download these records (NDJSON)' }).click();
    const file = await (await download).path();
    const { readFile } = await import('node:fs/promises');
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    expect(lines.map((l) => l.operation)).toEqual(['project.create']);
    expect(errors).toEqual([]);
  });

  it('is not offered to members', async () => {
    const memberPage = await (await newContext(browser, server.url)).newPage();
    const key = await server.addUser('sam@example.com');
    await signInWithKey(memberPage, key);
    await memberPage.goto('/org?tab=audit');
    await memberPage.getByRole('tab', { name: 'Storages' }).waitFor();
    expect(await memberPage.getByRole('tab', { name: 'Audit' }).count()).toBe(0);
  });
});
