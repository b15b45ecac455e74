import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { streetOntology } from '../helpers/street-scene.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import { canvasView, clickAt, signInWithKey, startStage, type Vec } from './helpers/editor-page.js';
import { apiAs } from './helpers/project-data.js';
import { signInAsOwner } from './helpers/sign-in.js';

/*
 * The rework loop in a browser, with real clicks: the reviewer sees who labelled the task and for
 * how long, raises an issue on the car and one at a point, and rejects; the labeler, who holds
 * another task, gets the returned one first with its notice and answers the issue in its thread;
 * the reviewer reads the answer and resolves the issue; the console's task page pins both issues
 * (red open, green resolved) and takes an answer too.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, unknown>;
const CAR = { x: 100, y: 80, width: 200, height: 120 };
const CAR_MIDDLE: Vec = [200, 140];
const SPOT: Vec = [650, 120];
const ANSWER = 'Widened the box to the bumper';

/** The colour on the screen a few pixels left of an image pixel (a pin's middle holds its number). */
async function pinColour(page: Page, p: Vec): Promise<[number, number, number]> {
  const [sx, sy] = (await canvasView(page)).screen(p);
  const shot = PNG.sync.read(
    await page.screenshot({ clip: { x: Math.round(sx) - 6, y: Math.round(sy), width: 1, height: 1 } }),
  );
  return [shot.data[0]!, shot.data[1]!, shot.data[2]!];
}
const isRed = ([r, g, b]: [number, number, number]) => r > 150 && g < 70 && b < 70;
const isGreen = ([r, g, b]: [number, number, number]) => g > 90 && r < 60 && b < 110;

describe('the rework loop: a returned task, its notice, answers on its issues, pins', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let labelerKey = '';
  let reviewerKey = '';
  let projectId = '';
  let taskId = '';
  let heldId = '';
  const contexts: BrowserContext[] = [];
  const errors: string[][] = [];

  const pageFor = async (key?: string): Promise<Page> => {
    const context = await newContext(browser, server.url);
    contexts.push(context);
    const page = await context.newPage();
    errors.push(pageErrors(page));
    if (key) await signInWithKey(page, key);
    return page;
  };

  beforeAll(async () => {
    assets = await serveAssets({
      '/street-1.png': { type: 'image/png', body: streetPng(800, 600) },
      '/street-2.png': { type: 'image/png', body: streetPng(800, 600) },
    });
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('labeler@example.com');
    reviewerKey = await server.addUser('reviewer@example.com');
    const owner = apiAs(server);
    const labeler = apiAs(server, labelerKey);
    projectId = (await owner<{ project: { _id: string } }>('POST', '/v2/project', { name: 'Streets' })).project._id;
    await owner('POST', `/v2/project/${projectId}`, {
      categorySchema: streetOntology(),
      stages: [
        { id: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Review'], rememberAssignee: true },
        { id: 'Review', name: 'Review', type: 'Review', next: ['Complete', 'Label'] },
        { id: 'Complete', type: 'Complete', next: [] },
      ],
    });
    await owner('POST', `/v2/project/${projectId}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    await owner('POST', `/v2/project/${projectId}/assigned`, { assignees: ['reviewer@example.com'], role: 'Reviewer' });
    await owner('POST', `/v2/project/${projectId}/cloud`, {
      assets: [
        { data: `${assets.url}/street-1.png`, externalId: 'street-1' },
        { data: `${assets.url}/street-2.png`, externalId: 'street-2' },
      ],
    });
    await owner('POST', `/v2/project/${projectId}/updatePriority`, {
      priority: 10,
      filters: { externalIds: ['street-1'] },
    });
    // The labeler boxes the car on street-1 in 65 s of work and submits, then takes street-2 and
    // keeps a draft of it: they hold it when street-1 comes back.
    const first = (await labeler<{ task: { _id: string } }>('GET', `/v2/project/${projectId}/next?stageId=Label`)).task;
    taskId = first._id;
    await labeler('POST', `/v2/annotate/${taskId}?nextStage=true`, {
      answer: {
        tools: [{ schemaId: 'car', 'bounding-box': CAR }],
        classifications: [{ schemaId: 'weather', answer: 'sun' }],
      },
      duration: 65_000,
    });
    heldId = (await labeler<{ task: { _id: string } }>('GET', `/v2/project/${projectId}/next?stageId=Label`)).task._id;
    await labeler('POST', `/v2/annotate/${heldId}`, { answer: { tools: [] }, duration: 3000 });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  it('the reviewer sees who labelled the task and how long it took, raises two issues and rejects', async () => {
    const page = await pageFor(reviewerKey);
    expect(await startStage(page, 'Review', 'Streets')).toBe(taskId);
    await page.getByText('Labelled by labeler@example.com in 1 min 5 s').waitFor();

    // An issue on the car: a click on its edge while raising issues names the object.
    await page.getByRole('button', { name: 'Raise an issue' }).click();
    await clickAt(page, [CAR.x, CAR_MIDDLE[1]]);
    let form = page.getByRole('form', { name: 'New issue' });
    await form.getByText('New issue on Car 1').waitFor();
    await form.getByLabel('What is wrong').fill('The box stops short of the bumper');
    await form.getByRole('button', { name: 'Save issue' }).click();
    await page.getByText('Issues (1 open)').waitFor();

    // ...and one at a point of the sky.
    await page.getByRole('button', { name: 'Raise an issue' }).click();
    await clickAt(page, SPOT);
    form = page.getByRole('form', { name: 'New issue' });
    await form.getByText(/^New issue at \(/).waitFor();
    await form.getByLabel('What is wrong').fill('A second car is missing here');
    await form.getByRole('button', { name: 'Save issue' }).click();
    await page.getByText('Issues (2 open)').waitFor();
    await expect.poll(async () => isRed(await pinColour(page, SPOT))).toBe(true);
    await expect.poll(async () => isRed(await pinColour(page, CAR_MIDDLE))).toBe(true);

    const { issues } = await apiAs(server)<{ issues: Json[] }>('GET', `/v2/issues?labelTask=${taskId}&sort=createdAt`);
    const car = ((await apiAs(server)<{ task: Json }>('GET', `/v2/task/${taskId}`)).task.answer as Json)
      .tools as Json[];
    expect(issues.map((i) => i.objectId)).toEqual([car[0]?.objectId, null]);

    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    await page.close();
  });

  it('the labeler gets the returned task first, with its notice, and answers the issue on the car', async () => {
    const page = await pageFor(labelerKey);
    // They hold street-2 (a draft), and street-1 came back: it opens first.
    expect(await startStage(page, 'Label', 'Streets')).toBe(taskId);
    await page.getByText('Returned by reviewer@example.com: 2 open issues, see below.').waitFor();
    await page.getByText('Issues (2 open)').waitFor();

    await page.getByRole('button', { name: 'Answer issue 1' }).click();
    const form = page.getByRole('form', { name: 'Answer to issue 1' });
    await form.getByLabel('Your answer to issue 1').fill(ANSWER);
    await form.getByRole('button', { name: 'Send answer' }).click();
    const thread = page.getByRole('list', { name: 'Answers to issue 1' });
    await thread.getByText(ANSWER).waitFor();
    await thread.getByText('labeler@example.com').waitFor();
    expect(await form.count()).toBe(0);
    await screenshot(page, 'editor-rework-answer');

    const { issues } = await apiAs(server)<{ issues: Json[] }>('GET', `/v2/issues?labelTask=${taskId}&sort=createdAt`);
    const comments = issues[0]?.comments as Json[];
    expect(comments.map((c) => [c.content, c.createdBy])).toEqual([[ANSWER, 'labeler@example.com']]);
    expect(issues[1]?.comments).toEqual([]);

    await page.getByRole('button', { name: 'Submit' }).click();
    // Then the task they held.
    await page.waitForURL((url) => url.pathname.endsWith(heldId));
    await page.close();
  });

  it('the reviewer reads the answer, resolves that issue; its pin turns green', async () => {
    const page = await pageFor(reviewerKey);
    expect(await startStage(page, 'Review', 'Streets')).toBe(taskId);
    await page.getByText(/^Labelled by labeler@example\.com in 1 min \d+ s \(2 submits\)$/).waitFor();
    await page.getByRole('list', { name: 'Answers to issue 1' }).getByText(ANSWER).waitFor();
    await page.getByRole('button', { name: 'Resolve issue “The box stops short of the bumper”' }).click();
    await page.getByText('Issues (1 open, 1 resolved)').waitFor();
    await expect.poll(async () => isGreen(await pinColour(page, CAR_MIDDLE))).toBe(true);
    expect(isRed(await pinColour(page, SPOT))).toBe(true);
    await screenshot(page, 'editor-rework-review');
    await page.close();
  });

  it("the task page pins both issues, says who labelled it, and takes an answer in an issue's thread", async () => {
    const page = await pageFor();
    await signInAsOwner(page, server, `/projects/${projectId}/tasks/${taskId}`);
    await page.getByRole('heading', { name: 'Task street-1' }).waitFor();
    await page.getByText(/^labeler@example\.com in 1 min \d+ s \(2 submits\)$/).waitFor();
    const issues = page.getByRole('region', { name: 'Issues' });
    await issues.getByText('1 open, 1 resolved.').waitFor();
    await issues.getByText(', pinned on Car 1').waitFor();
    await issues.getByText(/, pinned at (649|650|651), (119|120|121)$/).waitFor();
    await issues.getByRole('list', { name: 'Answers to issue 1' }).getByText(ANSWER).waitFor();
    await expect.poll(async () => isGreen(await pinColour(page, CAR_MIDDLE))).toBe(true);
    await expect.poll(async () => isRed(await pinColour(page, SPOT))).toBe(true);

    await issues.getByRole('button', { name: 'Answer issue 2' }).click();
    const form = issues.getByRole('form', { name: 'Answer to issue 2' });
    await form.getByLabel('Your answer to issue 2').fill('Look left of the tree');
    await form.getByRole('button', { name: 'Send answer' }).click();
    await issues.getByRole('list', { name: 'Answers to issue 2' }).getByText('Look left of the tree').waitFor();
    await screenshot(page, 'console-task-rework');
    // A blank answer is not sent: its button stays off.
    await issues.getByRole('button', { name: 'Answer issue 2' }).click();
    await form.getByLabel('Your answer to issue 2').fill('   ');
    expect(await form.getByRole('button', { name: 'Send answer' }).isDisabled()).toBe(true);
  });

  it('printed no errors in the pages', () => {
    expect(errors.flat()).toEqual([]);
  });
});
