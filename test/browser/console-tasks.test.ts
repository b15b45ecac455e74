import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streetOntology } from '../helpers/street-scene.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { apiAs, solidPng, storedImage } from './helpers/project-data.js';
import { signInAsOwner } from './helpers/sign-in.js';

const engine = ENGINES[0] ?? 'sqlite';

/** Pixels of the task page's image canvas close to pure red (the Car tool's colour). */
const RED_PIXELS = `(() => {
  let red = 0;
  for (const canvas of document.querySelectorAll('.task-asset canvas')) {
    const ctx = canvas.getContext('2d');
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    for (let i = 0; i < data.length; i += 4) if (data[i] > 220 && data[i + 1] < 40 && data[i + 2] < 40) red++;
  }
  return red;
})()`;

describe('the console: a task page and bulk forward', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let projectId = '';
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    server = await startConsoleServer(engine);
    const api = apiAs(server);
    const { project } = await api<{ project: { _id: string } }>('POST', '/v2/project', { name: 'Parking lot' });
    projectId = project._id;
    await api('POST', `/v2/project/${projectId}`, { categorySchema: streetOntology() });
    await api('POST', `/v2/project/${projectId}`, {
      stages: [
        { id: 'Start', name: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Hold'] },
        { id: 'Hold', name: 'Waiting room', type: 'Hold', next: ['Complete'] },
        { id: 'Complete', name: 'Complete', type: 'Complete' },
      ],
    });
    // A light blue image: the only red on the canvas is the Car box drawn over it.
    const image = await storedImage(server, projectId, 'lot.png', solidPng(400, 300, [200, 220, 240]));
    await api('POST', `/v2/project/${projectId}/cloud`, {
      assets: [
        { data: image, externalId: 'lot-1' },
        { data: image, externalId: 'lot-2' },
        { data: image, externalId: 'lot-3' },
      ],
    });
    const { tasks } = await api<{ tasks: { _id: string; externalId: string }[] }>(
      'GET',
      `/v2/project/${projectId}/tasks?fields=_id,externalId`,
    );
    for (const t of tasks) ids[t.externalId] = t._id;
    // lot-1 and lot-2 are labelled (42 s and 7 s) and wait in Hold; lot-1 has an issue pinned on it.
    await api('POST', `/v2/annotate/${ids['lot-1']}?nextStage=true`, {
      answer: {
        tools: [{ schemaId: 'car', 'bounding-box': { x: 40, y: 30, width: 160, height: 100 } }],
        classifications: [{ schemaId: 'weather', answer: 'rain' }],
      },
      duration: 42_000,
    });
    await api('POST', `/v2/annotate/${ids['lot-2']}?nextStage=true`, { answer: { tools: [] }, duration: 7000 });
    await api('POST', '/v2/issues', { labelTask: ids['lot-1'], content: 'The car is cut off', position: '[300, 200]' });

    browser = await launchBrowser();
    context = await newContext(browser, server.url);
    page = await context.newPage();
    await signInAsOwner(page, server, `/projects/${projectId}/tasks`);
    errors = pageErrors(page);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  it('opens a task from the table: its image with the answer drawn, the answer, the history and the issue', async () => {
    await page.getByRole('heading', { name: '3 tasks' }).waitFor();
    await page.getByRole('link', { name: 'lot-1', exact: true }).click();
    await page.waitForURL(`**/projects/${projectId}/tasks/${ids['lot-1']}`);
    await page.getByRole('heading', { name: 'Task lot-1' }).waitFor();
    // The answer in words, with the ontology's names.
    const answer = page.getByRole('region', { name: 'Answer' });
    await answer.getByRole('button', { name: 'Car' }).waitFor();
    await answer.getByText('box at 40, 30, 160 × 100').waitFor();
    await answer.getByText('Weather').waitFor();
    await answer.getByText('Rainy').waitFor();
    // Drawn on the image: the red box's outline is on the canvas, over the blue image.
    await expect.poll(() => page.evaluate(RED_PIXELS), { timeout: 15_000 }).toBeGreaterThan(200);
    // The history: who left which stage, how, when and after how long.
    const history = page.getByRole('list', { name: 'History' });
    const entries = history.getByRole('listitem');
    await expect.poll(() => entries.count()).toBe(2);
    await expect.poll(() => entries.first().textContent()).toMatch(/^Labelsubmitted by admin@[^ ]+.*42 s$/);
    await expect.poll(() => entries.last().textContent()).toBe('Waiting roomnow');
    // The issue, open, with where its pin is.
    const issues = page.getByRole('region', { name: 'Issues' });
    await issues.getByText('1 open, 0 resolved.').waitFor();
    await issues.getByText('pinned at 300, 200').waitFor();
    await screenshot(page, 'console-task-page');
    expect(errors).toEqual([]);
  });

  it("acts on the one task: priority and assignee, shown in the task's facts", async () => {
    await page.goto(`/projects/${projectId}/tasks/${ids['lot-3']}`);
    await page.getByRole('heading', { name: 'Task lot-3' }).waitFor();
    const actions = page.getByRole('region', { name: 'Act on this task' });
    await actions.getByLabel('Priority').fill('7');
    await actions.getByRole('button', { name: 'Set priority' }).click();
    await actions.getByText('Priority set.').waitFor();
    await page.getByRole('definition').filter({ hasText: /^7$/ }).waitFor();
    await actions.getByLabel('Assign to (e-mail)').fill(server.ownerEmail);
    await actions.getByRole('button', { name: 'Assign' }).click();
    await actions.getByText('Assigned.').waitFor();
    await page.getByRole('definition').filter({ hasText: server.ownerEmail }).waitFor();
    // A task in Hold offers the forward; lot-3 waits in Label, so it does not.
    expect(await actions.getByRole('button', { name: /^Forward/ }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('forwards every task the filter matches out of a Hold stage', async () => {
    await page.goto(`/projects/${projectId}/tasks`);
    await page.getByLabel('Stage', { exact: true }).selectOption({ label: 'Waiting room' });
    await page.getByRole('heading', { name: '2 tasks' }).waitFor();
    await page.getByText('Tasks waiting in Waiting room go on to Complete.').waitFor();
    await page.getByRole('radio', { name: /All 2 matching the filter/ }).check();
    await screenshot(page, 'console-tasks-forward');
    await page.getByRole('button', { name: 'Forward', exact: true }).click();
    await page.getByText('Forwarded: 2 tasks.').waitFor();
    await page.getByText('No task matches the filter.').waitFor();
    await page.getByLabel('Stage', { exact: true }).selectOption({ label: 'Complete' });
    await page.getByRole('heading', { name: '2 tasks' }).waitFor();
    await screenshot(page, 'console-tasks-forwarded');
    // The server agrees, and the history says who forwarded them.
    const api = apiAs(server);
    const { total } = await api<{ total: number }>('GET', `/v2/project/${projectId}/tasks?stage=Complete`);
    expect(total).toBe(2);
    await page.goto(`/projects/${projectId}/tasks/${ids['lot-2']}`);
    const entries = page.getByRole('list', { name: 'History' }).getByRole('listitem');
    await expect.poll(() => entries.nth(1).textContent()).toMatch(/^Waiting roomforwarded by admin@/);
    expect(errors).toEqual([]);
  });

  it('forwards selected tasks only, leaving the others waiting', async () => {
    const api = apiAs(server);
    await api('POST', `/v2/project/${projectId}/requeueTasks`, { toStageId: 'Hold', filters: {} });
    await page.goto(`/projects/${projectId}/tasks`);
    await page.getByLabel('Stage', { exact: true }).selectOption({ label: 'Waiting room' });
    await page.getByRole('heading', { name: '3 tasks' }).waitFor();
    await page.getByRole('checkbox', { name: 'Select lot-2' }).check();
    await page.getByRole('button', { name: 'Forward', exact: true }).click();
    await page.getByText('Forwarded: 1 task.').waitFor();
    await page.getByRole('heading', { name: '2 tasks' }).waitFor();
    const { tasks } = await api<{ tasks: { externalId: string }[] }>(
      'GET',
      `/v2/project/${projectId}/tasks?stage=Complete&fields=externalId`,
    );
    expect(tasks.map((t) => t.externalId)).toEqual(['lot-2']);
    expect(errors).toEqual([]);
  });

  it('shows a text asset with its spans highlighted, and any other asset as its link', async () => {
    const api = apiAs(server);
    const { project } = await api<{ project: { _id: string } }>('POST', '/v2/project', { name: 'Reviews' });
    await api('POST', `/v2/project/${project._id}`, {
      categorySchema: {
        tools: [{ schemaId: 'place', title: 'Place', tool: 'ner', color: '#00aa00' }],
        classifications: [],
        relations: [],
      },
    });
    const text = 'We stayed in Lisbon for a week.';
    const { uploadUrl } = await api<{ uploadUrl: string }>(
      'GET',
      `/v2/getUploadUrl?project=${project._id}&name=review.txt&type=assets`,
    );
    expect((await fetch(uploadUrl, { method: 'PUT', body: text })).ok).toBe(true);
    const { signedUrl } = await api<{ signedUrl: string }>(
      'GET',
      `/v2/getSignedUrl?project=${project._id}&name=${encodeURIComponent(uploadUrl)}`,
    );
    await api('POST', `/v2/project/${project._id}/cloud`, {
      assets: [
        { data: signedUrl, externalId: 'review-1' },
        { data: 'https://media.example.com/clip.mp4', externalId: 'clip-1' },
      ],
    });
    const { tasks } = await api<{ tasks: { _id: string; externalId: string }[] }>(
      'GET',
      `/v2/project/${project._id}/tasks?fields=_id,externalId`,
    );
    const id = (ext: string) => tasks.find((t) => t.externalId === ext)?._id ?? '';
    await api('POST', `/v2/annotate/${id('review-1')}`, {
      answer: { tools: [{ schemaId: 'place', ner: { start: 13, end: 19 } }] },
    });
    await page.goto(`/projects/${project._id}/tasks/${id('review-1')}`);
    const doc = page.getByRole('document', { name: 'The text with its spans' });
    await doc.waitFor();
    expect(await doc.textContent()).toBe(text);
    expect(await doc.locator('mark').allTextContents()).toEqual(['Lisbon']);
    await page.getByRole('region', { name: 'Answer' }).getByText('characters 13 to 19').waitFor();
    await screenshot(page, 'console-task-text');
    await page.goto(`/projects/${project._id}/tasks/${id('clip-1')}`);
    await page.getByRole('link', { name: 'https://media.example.com/clip.mp4' }).waitFor();
    expect(errors).toEqual([]);
  });
});
