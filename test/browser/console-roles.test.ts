import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { apiAs } from './helpers/project-data.js';
import { signInWithKey } from './helpers/editor-page.js';
import { signInAsOwner } from './helpers/sign-in.js';

/*
 * The console by role (DECISIONS 2): each page and control is shown only to the roles that may
 * use it. A Labeler, a Reviewer and a Lead sign in and open the project from the project list as
 * a person would; what they see is their work, and no manager control is on their pages.
 */

const engine = ENGINES[0] ?? 'sqlite';

/** What only a Manager may use: none of it may be on a page shown to another role. */
const MANAGER_CONTROLS = [
  'Add stage',
  'Save workflow',
  'Discard changes',
  'Save settings',
  'Add or change role',
  'Save ontology',
  'Create project',
  'Run export',
  'Tidy up the layout',
];

async function managerControlsOn(page: Page): Promise<string[]> {
  const shown: string[] = [];
  for (const name of MANAGER_CONTROLS) {
    if ((await page.getByRole('button', { name, exact: true }).count()) > 0) shown.push(name);
  }
  return shown;
}

const sections = (page: Page) => page.getByRole('navigation', { name: 'Project' }).getByRole('link').allTextContents();

describe('the console by role', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let projectId = '';
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    server = await startConsoleServer(engine);
    browser = await launchBrowser();
    const api = apiAs(server);
    const { project } = await api<{ project: { _id: string } }>('POST', '/v2/project', { name: 'Street signs' });
    projectId = project._id;
    await api('POST', `/v2/project/${projectId}`, {
      categorySchema: { tools: [{ schemaId: 'sign', title: 'Sign', tool: 'bounding-box', color: '#d92d20' }] },
      stages: [
        { id: 'Start', type: 'Start', next: ['Label'], position: { x: 0, y: 0 } },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Review'], position: { x: 240, y: 0 } },
        { id: 'Review', name: 'Review', type: 'Review', next: ['Complete', 'Label'], position: { x: 480, y: 0 } },
        { id: 'Complete', type: 'Complete', next: [], position: { x: 720, y: 0 } },
      ],
      queueCountsEnabled: true,
    });
    await api('POST', `/v2/project/${projectId}/cloud`, {
      assets: ['a', 'b', 'c'].map((n) => ({ data: `https://example.com/sign-${n}.jpg`, externalId: `sign-${n}` })),
    });
    for (const [email, role] of [
      ['lina@example.com', 'Labeler'],
      ['rui@example.com', 'Reviewer'],
      ['lea@example.com', 'Lead'],
    ] as const) {
      keys[role] = await server.addUser(email);
      await api('POST', `/v2/project/${projectId}/assigned`, { assignees: [email], role });
    }
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A fresh browser signed in with the role's key, the project opened from the project list. */
  async function openAs(role: string): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, keys[role] ?? '');
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.getByRole('link', { name: 'Street signs' }).click();
    return { page, errors, close: () => context.close() };
  }

  it('opens a Labeler on their work: the Label stage, its count and Start; no manager control anywhere', async () => {
    const { page, errors, close } = await openAs('Labeler');
    await page.waitForURL(`**/projects/${projectId}/work`);
    await page.getByRole('heading', { name: 'Your work' }).waitFor();
    await page.getByRole('cell', { name: '3 waiting' }).waitFor();
    expect(await sections(page)).toEqual(['Your work']);
    expect(await page.getByRole('button', { name: 'Start Label in Street signs' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: /^Start Review/ }).count()).toBe(0);
    expect(await managerControlsOn(page)).toEqual([]);
    expect(await page.getByText(/Live counts unavailable|Not allowed|not saved/).count()).toBe(0);
    await screenshot(page, 'console-roles-labeler');
    // The manager's pages, opened by their address, give way to the Labeler's own page.
    for (const section of ['workflow', 'settings', 'ontology', 'tasks', 'exports']) {
      await page.goto(`/projects/${projectId}/${section}`);
      await page.waitForURL(`**/projects/${projectId}/work`);
      await page.getByRole('heading', { name: 'Your work' }).waitFor();
      expect(await managerControlsOn(page)).toEqual([]);
    }
    // The project list has no form for a new project for someone who only labels.
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.getByRole('link', { name: 'Street signs' }).waitFor();
    expect(await page.getByRole('heading', { name: 'New project' }).count()).toBe(0);
    expect(await managerControlsOn(page)).toEqual([]);
    expect(await page.getByRole('button', { name: 'Delete Street signs' }).count()).toBe(0);
    await screenshot(page, 'console-roles-labeler-projects');
    // Start takes a task into the editor.
    await page.getByRole('link', { name: 'Street signs' }).click();
    await page.getByRole('button', { name: 'Start Label in Street signs' }).click();
    await page.waitForURL(/\/work\/tasks\//);
    // The editor in dark mode: its panels take the dark surfaces too.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('.image-editor').waitFor();
    await screenshot(page, 'editor-dark');
    expect(errors.filter((e) => !/Failed to load resource|ERR_NAME_NOT_RESOLVED|example\.com/.test(e))).toEqual([]);
    await close();
  });

  it('shows a Reviewer their work and the workflow, tasks and overview read-only, without a manager control', async () => {
    const { page, errors, close } = await openAs('Reviewer');
    await page.waitForURL(`**/projects/${projectId}/work`);
    expect(await sections(page)).toEqual(['Your work', 'Workflow', 'Tasks', 'Overview']);
    await page.getByRole('button', { name: 'Start Review in Street signs' }).waitFor();
    await page.getByRole('button', { name: 'Start Label in Street signs' }).waitFor();
    expect(await managerControlsOn(page)).toEqual([]);
    await page.getByRole('link', { name: 'Workflow' }).click();
    await page.getByLabel('3 tasks in Label').waitFor({ timeout: 30_000 });
    expect(await managerControlsOn(page)).toEqual([]);
    expect(await page.getByText(/Live counts unavailable|not saved/).count()).toBe(0);
    await page.locator('.react-flow__node[data-id="Review"]').click();
    await page.getByRole('region', { name: 'Stage Review' }).getByText('Accepted: Complete').waitFor();
    await screenshot(page, 'console-roles-reviewer-workflow');
    await page.getByRole('link', { name: 'Tasks' }).click();
    await page.getByRole('heading', { name: '3 tasks' }).waitFor();
    expect(await page.getByRole('button', { name: 'Requeue' }).count()).toBe(0);
    expect(await managerControlsOn(page)).toEqual([]);
    await page.goto(`/projects/${projectId}/settings`);
    await page.waitForURL(`**/projects/${projectId}/work`);
    expect(errors).toEqual([]);
    await close();
  });

  it('opens a Lead on the tasks, with the bulk actions a Lead may use and no Exports or Settings', async () => {
    const { page, errors, close } = await openAs('Lead');
    await page.waitForURL(`**/projects/${projectId}/tasks`);
    expect(await sections(page)).toEqual(['Your work', 'Workflow', 'Tasks', 'Assets', 'Overview']);
    await page.getByRole('button', { name: 'Requeue' }).waitFor();
    expect(await managerControlsOn(page)).toEqual([]);
    await page.goto(`/projects/${projectId}/exports`);
    await page.waitForURL(`**/projects/${projectId}/tasks`);
    expect(await page.getByRole('button', { name: 'Run export' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await close();
  });

  it('shows a Manager the list with progress, archive and delete, and fixes saved ids once there are answers', async () => {
    const api = apiAs(server);
    const { project: old } = await api<{ project: { _id: string } }>('POST', '/v2/project', { name: 'Old signs' });
    const { tasks } = await api<{ tasks: { _id: string }[] }>('GET', `/v2/project/${projectId}/tasks?limit=1`);
    await api('POST', `/v2/annotate/${tasks[0]?._id}`, {
      answer: { tools: [{ schemaId: 'sign', objectId: 'o1', 'bounding-box': { x: 1, y: 2, width: 30, height: 40 } }] },
    });
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    await signInAsOwner(page, server, '/projects');
    const errors = pageErrors(page);
    await page.getByRole('progressbar', { name: 'Street signs: 0 of 3 tasks done' }).waitFor();
    await page.getByRole('button', { name: 'Archive Old signs' }).click();
    await page.getByRole('link', { name: 'Old signs' }).waitFor({ state: 'detached' });
    await screenshot(page, 'console-projects');
    await page.getByLabel('Show archived projects').check();
    await page.getByRole('link', { name: 'Old signs' }).waitFor();
    await page.getByRole('button', { name: 'Delete Old signs' }).click();
    await page
      .getByRole('group', { name: 'Delete Old signs?' })
      .getByRole('button', { name: 'Delete project' })
      .click();
    await page.getByText('No project is archived.').waitFor();
    expect((await server.call('GET', `/v2/project/${old._id}`)).statusCode).toBe(404);

    // The project has an answer naming `sign`: its id is fixed, and says why; a new tool's is not.
    await page.goto(`/projects/${projectId}/ontology`);
    const sign = page.getByRole('group', { name: 'Sign', exact: true });
    const id = sign.getByLabel('Id', { exact: true });
    await expect.poll(() => id.getAttribute('readonly')).not.toBeNull();
    await sign.getByText('Fixed: the project has answers').waitFor();
    await page.getByRole('button', { name: 'Add tool' }).click();
    await page.getByRole('group', { name: 'Tool 2', exact: true }).getByLabel('Title', { exact: true }).fill('Sign');
    const second = page.getByRole('group', { name: 'Sign', exact: true }).nth(1).getByLabel('Id', { exact: true });
    expect(await second.inputValue()).toBe('sign-2');
    expect(await second.getAttribute('readonly')).toBeNull();
    await screenshot(page, 'console-ontology-locked');

    // Dark mode, as the system asks: the same pages on dark surfaces.
    await page.emulateMedia({ colorScheme: 'dark' });
    const surface = () =>
      page.evaluate('getComputedStyle(document.querySelector(".card")).backgroundColor') as Promise<string>;
    await expect.poll(surface).toBe('rgb(24, 28, 33)');
    await screenshot(page, 'console-dark-ontology');
    await page.goto(`/projects/${projectId}/workflow`);
    await page
      .getByLabel('3 tasks in Label')
      .or(page.getByLabel('2 tasks in Label'))
      .first()
      .waitFor({ timeout: 30_000 });
    await screenshot(page, 'console-dark-workflow');
    await page.goto(`/projects/${projectId}/setup`);
    await page.getByRole('list', { name: 'Setup checklist' }).waitFor();
    await screenshot(page, 'console-dark-setup');
    await page.goto('/projects');
    await page.getByRole('link', { name: 'Street signs' }).waitFor();
    await screenshot(page, 'console-dark-projects');
    expect(errors).toEqual([]);
    await context.close();
  });
});
