import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillBucket, S3RVER_KEYS, startS3rver } from '../helpers/emulators.js';
import { startPluginServer, type PluginServer } from '../helpers/plugin-server.js';
import { ENGINES } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';
import { ONTOLOGY, pluginBehaviour } from '../helpers/every-operation.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { callApi, type Json } from './helpers/api.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { signInAsOwner } from './helpers/sign-in.js';

/*
 * The Organization page (/org) in a real browser, real clicks and typing: members and roles,
 * an invite and its one-time link, a storage on a real S3 server (s3rver) browsed folder by
 * folder and imported into a project, plugins and the log a real plugin wrote, and a new API
 * key that replaces the old one. The API-key test runs last: it retires the owner's key.
 */

const engine = ENGINES[0] ?? 'sqlite';

/** What the page put on the clipboard (read in the page: the test's tsconfig has no DOM types). */
const readClipboard = (page: Page) => page.evaluate('navigator.clipboard.readText()') as Promise<string>;

describe('the Organization page', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let s3: Awaited<ReturnType<typeof startS3rver>>;
  let plugin: PluginServer;
  let projectId: string;

  const api = (method: string, path: string, body?: unknown, key?: string) => callApi(server, method, path, body, key);
  const tab = (name: string) => page.getByRole('tab', { name, exact: true }).click();

  beforeAll(async () => {
    s3 = await startS3rver();
    const many = Object.fromEntries(
      Array.from({ length: 130 }, (_, i) => [`many/f${String(i).padStart(3, '0')}.jpg`, 'x']),
    );
    await fillBucket(s3.client, 'photos', {
      'a.jpg': 'A',
      'readme.txt': 'r',
      'cats/1.jpg': 'cat one',
      'cats/2.png': 'cat two',
      'cats/deep/3.jpg': 'cat three',
      ...many,
    });
    server = await startConsoleServer(engine, {
      worker: true,
      env: {
        ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true',
        ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true',
        // The test's own API calls and polling stay clear of the standard plan's 100 a minute.
        ANNOTARY_DEFAULT_PLAN: 'enterprise',
      },
    });
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await context.newPage();
    await signInAsOwner(page, server);
    errors = pageErrors(page);
    const made = await api('POST', '/v2/project', { name: 'Street scenes' });
    projectId = (made.data.project as Json)._id as string;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await plugin?.close();
    await s3?.stop();
  });

  it('lists the members, changes a role, removes a person', async () => {
    await server.addUser('mia@example.com');
    await server.addUser('noor@example.com');
    await page.goto('/org');
    await page.getByRole('heading', { name: 'Organization: Default organization' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Members' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('cell', { name: 'mia@example.com', exact: true }).waitFor();

    await page.getByLabel('Organization role of mia@example.com').selectOption('admin');
    await waitFor(
      async () => {
        const users = (await api('GET', `/v2/organization/${server.orgId}/users`)).data.users as Json[];
        return users.find((u) => u.email === 'mia@example.com')?.organizationRole === 'admin';
      },
      'the new role',
      15_000,
      200,
    );

    await page.getByRole('button', { name: 'Remove noor@example.com' }).click();
    await page.getByRole('button', { name: 'Yes, remove noor@example.com' }).click();
    await page.getByRole('cell', { name: 'noor@example.com', exact: true }).waitFor({ state: 'detached' });
    const users = (await api('GET', `/v2/organization/${server.orgId}/users`)).data.users as Json[];
    expect(users.map((u) => u.email)).not.toContain('noor@example.com');
    // The owner's own row has no role select and no remove button.
    expect(await page.getByLabel(`Organization role of ${server.ownerEmail}`).count()).toBe(0);
  });

  it('invites a person: the one-time link is shown with a copy button, and it works', async () => {
    await page.goto('/org?tab=members');
    await page.getByLabel('E-mails to invite').fill('not-an-address');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.getByText('must be an e-mail address').waitFor();

    await page.getByLabel('E-mails to invite').fill('lena@example.com');
    await page.getByLabel('Project to join').selectOption({ label: 'Street scenes' });
    await page.getByLabel('Project role').selectOption('Reviewer');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const linkBox = page.getByRole('textbox', { name: 'Invite link for lena@example.com' });
    await linkBox.waitFor();
    const link = await linkBox.inputValue();
    expect(link).toMatch(new RegExp(`^${server.url}/invite/[\\w-]+$`));
    await page.getByRole('button', { name: 'Copy link for lena@example.com' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await readClipboard(page)).toBe(link);
    await page.getByRole('cell', { name: 'lena@example.com', exact: true }).waitFor();
    await screenshot(page, 'console-org-members');

    // The link opens the invite page for that person, with the invited role.
    const other = await newContext(browser, server.url);
    const invitee = await other.newPage();
    await invitee.goto(link);
    await invitee.getByRole('heading', { name: 'Join Default organization' }).waitFor();
    expect(await invitee.getByText('lena@example.com').count()).toBeGreaterThan(0);
    await other.close();
    const roles = (await api('GET', `/v2/project/${projectId}`)).data.project as Json;
    expect(roles.assignedTo).toEqual(expect.arrayContaining([{ assignee: 'lena@example.com', role: 'Reviewer' }]));

    // Cancelling the invite voids the link.
    await page.getByRole('button', { name: 'Cancel the invite for lena@example.com' }).click();
    await page.getByRole('button', { name: 'Yes, cancel the invite for lena@example.com' }).click();
    await page.getByText('No invite is waiting.').waitFor();
    expect((await fetch(`${server.url}/v2/password-links/${link.split('/').pop()}`)).status).toBe(404);
  });

  it('connects a storage on a local S3 server, with errors on the field and the secret never shown', async () => {
    await page.goto('/org');
    await tab('Storages');
    await page.getByText('No storage is connected yet.').waitFor();
    // Each provider asks for its own fields.
    await page.getByLabel('Provider').selectOption('GCP');
    await page.getByLabel('Service-account key (JSON)').waitFor();
    await page.getByLabel('Provider').selectOption('AZURE');
    await page.getByLabel('Storage account name').waitFor();
    expect(await page.getByLabel('Account key').getAttribute('type')).toBe('password');
    await page.getByLabel('Authentication').selectOption('SERVICE_PRINCIPAL');
    await page.getByLabel('Client secret').waitFor();

    await page.getByLabel('Provider').selectOption('CUSTOM_S3');
    await page.getByLabel('Storage name').fill('Lab photos');
    await page.getByLabel('Endpoint URL').fill('not a url');
    await page.getByLabel('Access key id').fill(S3RVER_KEYS.accessKeyId);
    await page.getByLabel('Secret access key').fill(S3RVER_KEYS.secretAccessKey);
    await page.getByRole('button', { name: 'Connect storage' }).click();
    const hostError = page.locator('.field-invalid', { has: page.getByLabel('Endpoint URL') }).locator('.field-error');
    await hostError.waitFor();
    expect(await hostError.textContent()).toMatch(/URL/);
    await screenshot(page, 'console-org-storage-error');

    await page.getByLabel('Endpoint URL').fill(s3.url);
    await page.getByRole('button', { name: 'Connect storage' }).click();
    await page.getByRole('cell', { name: 'Lab photos', exact: true }).waitFor();
    expect(await page.getByLabel('Secret access key').inputValue()).toBe('');
    const listed = await api('GET', '/v2/storages');
    expect((listed.data.storages as Json[])[0]).not.toHaveProperty('privateKey');
  });

  it('browses the bucket folder by folder, pages a long folder, imports a folder into a project', async () => {
    await page.goto('/org?tab=storages');
    await page.getByRole('button', { name: 'Browse Lab photos' }).click();
    await page.getByLabel('Bucket').fill('photos');
    await page.getByRole('button', { name: 'Open bucket' }).click();
    const contents = page.getByRole('list', { name: 'Contents of photos' });
    await contents.getByText('a.jpg').waitFor();
    expect(await contents.getByText('readme.txt').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Open folder cats' }).click();
    const cats = page.getByRole('list', { name: 'Contents of cats/' });
    await cats.getByText('1.jpg').waitFor();
    expect(await cats.getByText('2.png').isVisible()).toBe(true);
    expect(await cats.getByRole('button', { name: 'Open folder deep' }).isVisible()).toBe(true);
    await screenshot(page, 'console-org-storages');

    // Import cats/ (three files, deep/3.jpg included) into the project.
    await page.getByLabel('Import into project').selectOption({ label: 'Street scenes' });
    await page.getByRole('button', { name: 'Import folder' }).click();
    await page.getByText('3 assets imported, 0 skipped').waitFor();
    const assets = (await api('GET', `/v2/project/${projectId}/assets?limit=10`)).data;
    expect((assets.assets as Json[]).map((a) => a.externalId).sort()).toEqual(['1.jpg', '2.png', 'deep/3.jpg']);

    // A folder longer than one page (100 entries) is paged with "Show more files".
    await page.getByRole('navigation', { name: 'Folder path' }).getByRole('button', { name: 'photos' }).click();
    await page.getByRole('button', { name: 'Open folder many' }).click();
    await page.getByText('0 folders, 100 files shown (more follow).').waitFor();
    await page.getByRole('button', { name: 'Show more files' }).click();
    await page.getByText('0 folders, 130 files shown.').waitFor();
    expect(await page.getByRole('button', { name: 'Show more files' }).count()).toBe(0);

    // A wrong bucket is said in words, not as a crash.
    await page.getByRole('button', { name: 'Close the file browser' }).click();
    await page.getByRole('button', { name: 'Browse Lab photos' }).click();
    await page.getByLabel('Bucket').fill('no-such-bucket');
    await page.getByRole('button', { name: 'Open bucket' }).click();
    const listingError = page.getByRole('alert').filter({ hasText: 'The bucket could not be listed' });
    await listingError.waitFor();
    // The provider's answer in words (a missing bucket), not a role message.
    expect(await listingError.textContent()).not.toMatch(/role/i);
    await screenshot(page, 'console-org-storage-missing-bucket');
  });

  it('deletes a storage after asking', async () => {
    const old = await api('POST', '/v2/storages', {
      name: 'Old archive',
      provider: 'CUSTOM_S3',
      host: s3.url,
      publicKey: 'old',
      privateKey: 'old secret',
    });
    expect(old.status).toBe(201);
    await page.goto('/org?tab=storages');
    await page.getByRole('button', { name: 'Delete Old archive' }).click();
    await page.getByRole('button', { name: 'Yes, delete Old archive' }).click();
    await page.getByRole('cell', { name: 'Old archive', exact: true }).waitFor({ state: 'detached' });
    const names = ((await api('GET', '/v2/storages')).data.storages as Json[]).map((s) => s.name);
    expect(names).toEqual(['Lab photos']);
  });

  it('registers plugins, shows the log a real plugin wrote, and refuses to delete one still in use', async () => {
    const modelKey = await server.addUser('model@example.com', 'admin');
    plugin = await startPluginServer(
      server.url,
      modelKey,
      pluginBehaviour(() => plugin),
    );
    await page.goto('/org?tab=plugins');
    await page.getByText('No plugin is registered yet.').waitFor();
    await page.getByLabel('Plugin name').fill('Car detector');
    await page.getByLabel('Plugin URL').fill('ftp://models.example.com');
    await page.getByLabel('Plugin secret').fill('s3cr3t');
    await page.getByRole('button', { name: 'Register plugin' }).click();
    await page.getByText('must be an http(s) URL').waitFor();
    await page.getByLabel('Plugin URL').fill(`${plugin.url}/detect`);
    await page.getByRole('button', { name: 'Register plugin' }).click();
    await page.getByRole('cell', { name: 'Car detector', exact: true }).waitFor();
    await page.getByLabel('Plugin name').fill('Old model');
    await page.getByLabel('Plugin URL').fill('https://old.example.com/run');
    await page.getByLabel('Plugin secret').fill('another secret');
    await page.getByRole('button', { name: 'Register plugin' }).click();
    await page.getByRole('cell', { name: 'Old model', exact: true }).waitFor();
    const plugins = (await api('GET', '/v2/plugins')).data.plugins as Json[];
    expect(JSON.stringify(plugins)).not.toContain('s3cr3t');
    const carId = plugins.find((p) => p.name === 'Car detector')?._id as string;

    // A project whose Plugin stage calls the plugin; the plugin logs and answers.
    const made = await api('POST', '/v2/project', { name: 'Model runs' });
    const modelProject = (made.data.project as Json)._id as string;
    await api('POST', `/v2/project/${modelProject}`, {
      stages: [
        { id: 'Start', type: 'Start', name: 'Start', next: ['Detect'] },
        { id: 'Detect', type: 'Plugin', name: 'Detect cars', pluginId: carId, next: ['Complete'] },
        { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
      ],
      categorySchema: ONTOLOGY,
    });
    await api('POST', `/v2/project/${modelProject}/cloud`, {
      assets: [{ data: 'https://example.com/a.jpg', externalId: 'a.jpg' }],
    });
    await waitFor(
      async () => ((await api('GET', `/v2/pluginLog?project=${modelProject}`)).data.total as number) >= 2,
      'the plugin log lines',
      15_000,
      200,
    );

    await page.reload(); // the project list was read before "Model runs" was made
    await page.getByLabel('Project of the log').selectOption({ label: 'Model runs' });
    await page.getByLabel('Plugin stage').selectOption({ label: 'Detect cars (Car detector)' });
    await page.getByRole('cell', { name: 'model loaded', exact: true }).waitFor();
    expect(await page.getByRole('cell', { name: '{"found":1}', exact: true }).isVisible()).toBe(true);
    await screenshot(page, 'console-org-plugins');

    await page.getByRole('button', { name: 'Delete Car detector' }).click();
    await page.getByRole('button', { name: 'Yes, delete Car detector' }).click();
    await page.getByText(/the plugin is used by Plugin stages of 1 project/).waitFor();
    await page.getByRole('button', { name: 'Delete Old model' }).click();
    await page.getByRole('button', { name: 'Yes, delete Old model' }).click();
    await page.getByRole('cell', { name: 'Old model', exact: true }).waitFor({ state: 'detached' });
    expect(((await api('GET', '/v2/plugins')).data.plugins as Json[]).map((p) => p.name)).toEqual(['Car detector']);
    expect(plugin.problems).toEqual([]);
  });

  it('shows a member what the role allows, with notes instead of errors', async () => {
    const key = await server.addUser('sam@example.com');
    const other = await newContext(browser, server.url);
    const member = await other.newPage();
    await member.goto('/signin');
    await member.getByRole('button', { name: 'Use an API key instead' }).click();
    await member.getByLabel('API key').fill(key);
    await member.getByRole('button', { name: 'Sign in' }).click();
    await member.waitForURL((url) => url.pathname !== '/signin');
    const memberErrors = pageErrors(member);
    await member.goto('/org');
    // Members and invites are not offered to a member: the page opens on Storages.
    await member.getByRole('tab', { name: 'Storages', selected: true }).waitFor();
    expect(await member.getByRole('tab', { name: 'Members' }).count()).toBe(0);
    await member.getByRole('cell', { name: 'Lab photos', exact: true }).waitFor();
    await member.getByText(/Connecting and deleting storages is for owners and admins/).waitFor();
    expect(await member.getByRole('button', { name: 'Delete Lab photos' }).count()).toBe(0);
    await member.getByRole('tab', { name: 'Plugins' }).click();
    await member.getByRole('cell', { name: 'Car detector', exact: true }).waitFor();
    await member.getByText(/Registering and deleting plugins is for owners and admins/).waitFor();
    await screenshot(member, 'console-org-member');
    expect(memberErrors).toEqual([]);
    await other.close();
  });

  it('makes a new API key, shown once: the old key answers 401 and the new one works', async () => {
    const oldKey = server.ownerKey;
    expect((await api('GET', '/v2/session', undefined, oldKey)).status).toBe(200);
    await page.goto('/org');
    // Keyboard: arrow keys move between the tabs.
    await page.getByRole('tab', { name: 'Members' }).focus();
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('tab', { name: 'Your API key', selected: true }).waitFor();
    await page.getByRole('button', { name: 'Make a new API key' }).click();
    await page.getByText('Your current key stops working at once.').waitFor();
    await page.getByRole('button', { name: 'Yes, replace my API key' }).click();
    const box = page.getByRole('textbox', { name: 'New API key' });
    await box.waitFor();
    const newKey = await box.inputValue();
    expect(newKey).not.toBe(oldKey);
    await page.getByRole('button', { name: 'Copy API key' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await readClipboard(page)).toBe(newKey);
    await screenshot(page, 'console-org-api-key');

    expect((await api('GET', '/v2/session', undefined, oldKey)).status).toBe(401);
    const me = await api('GET', '/v2/session', undefined, newKey);
    expect(me.status).toBe(200);
    expect((me.data.user as Json).email).toBe(server.ownerEmail);
    // The console session goes on; once hidden, the key is gone from the page.
    await page.getByRole('button', { name: 'I have copied it: hide the key' }).click();
    await page.getByRole('textbox', { name: 'New API key' }).waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('heading', { name: 'Organization: Default organization' }).waitFor();
    // The refused writes above (bad e-mail, host or URL, missing bucket, plugin in use) are 4xx
    // answers Chromium reports; anything else printed is a fault.
    const unexpected = errors.filter(
      (e) => !/^Failed to load resource: the server responded with a status of 40[049]/.test(e),
    );
    expect(unexpected).toEqual([]);
  });
});
