import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { streetOntology } from '../helpers/street-scene.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import { canvasView, clickAt, dragFrom, signInWithKey, startStage, type Vec } from './helpers/editor-page.js';

/*
 * The editor's less travelled ways, with a real mouse and keyboard: a rotated box drawn and
 * turned with the transformer's handle (stored in image pixels, rotation in degrees about its
 * origin), relations one-to-one and group (stored in the answer's `relations`), a reviewer's
 * issue on an object (the API's `objectId`), and the consensus score on the task that left a
 * Consensus stage.
 */

const engine = ENGINES[0] ?? 'sqlite';
const IMAGE = { width: 800, height: 600 };
type Json = Record<string, unknown>;

describe('the editor: rotated boxes, relations, issues on objects, consensus', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let labelerKey = '';
  let reviewerKey = '';
  let yards = '';
  let agreement = '';
  let taskId = '';
  const contexts: BrowserContext[] = [];
  const errors: string[][] = [];

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };
  const taskOf = async (id: string) => (await api('GET', `/v2/task/${id}`)).task as Json;

  const pageFor = async (key: string): Promise<Page> => {
    const context = await newContext(browser, server.url);
    contexts.push(context);
    const page = await context.newPage();
    await signInWithKey(page, key);
    errors.push(pageErrors(page));
    return page;
  };

  beforeAll(async () => {
    assets = await serveAssets({
      '/yard.png': { type: 'image/png', body: streetPng(IMAGE.width, IMAGE.height) },
      '/crossing.png': { type: 'image/png', body: streetPng(IMAGE.width, IMAGE.height) },
    });
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('labeler@example.com');
    reviewerKey = await server.addUser('reviewer@example.com');

    yards = ((await api('POST', '/v2/project', { name: 'Yards' })).project as Json)._id as string;
    await api('POST', `/v2/project/${yards}`, {
      categorySchema: {
        tools: [
          { schemaId: 'truck', title: 'Truck', tool: 'rotated-bounding-box', color: '#1570ef', shortcutKey: 't' },
          { schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#d92d20', shortcutKey: 'c' },
          { schemaId: 'person', title: 'Person', tool: 'point', color: '#12b76a', shortcutKey: 'p' },
        ],
        classifications: [],
        relations: [
          { schemaId: 'tows', title: 'Tows', tool: 'one-to-one' },
          { schemaId: 'convoy', title: 'Convoy', tool: 'group' },
        ],
      },
      stages: [
        { id: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Review'] },
        { id: 'Review', name: 'Review', type: 'Review', next: ['Complete', 'Label'] },
        { id: 'Complete', type: 'Complete', next: [] },
      ],
    });
    await api('POST', `/v2/project/${yards}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    await api('POST', `/v2/project/${yards}/assigned`, { assignees: ['reviewer@example.com'], role: 'Reviewer' });
    await api('POST', `/v2/project/${yards}/cloud`, {
      assets: [{ data: `${assets.url}/yard.png`, externalId: 'yard' }],
    });

    // Two copies of each task (stages c1, c2) labelled apart; agreement sends the task to Review.
    agreement = ((await api('POST', '/v2/project', { name: 'Agreement' })).project as Json)._id as string;
    await api('POST', `/v2/project/${agreement}`, {
      categorySchema: streetOntology(),
      stages: [
        { id: 'Start', type: 'Start', next: ['C'] },
        { id: 'C', type: 'Consensus', next: ['Review', 'Disputed'], consensusConfig: { threshold: 0.5 } },
        { id: 'c1', name: 'Copy A', type: 'Label', next: ['C'], consensusId: 'C' },
        { id: 'c2', name: 'Copy B', type: 'Label', next: ['C'], consensusId: 'C' },
        { id: 'Review', name: 'Review', type: 'Review', next: ['Done', 'Disputed'] },
        { id: 'Disputed', type: 'Hold', next: ['Done'] },
        { id: 'Done', type: 'Complete' },
      ],
    });
    await api('POST', `/v2/project/${agreement}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    await api('POST', `/v2/project/${agreement}/assigned`, { assignees: ['reviewer@example.com'], role: 'Reviewer' });
    await api('POST', `/v2/project/${agreement}/cloud`, {
      assets: [{ data: `${assets.url}/crossing.png`, externalId: 'crossing' }],
    });

    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  it('a rotated box is drawn, turned with its handle and stored in image pixels', async () => {
    const page = await pageFor(labelerKey);
    taskId = await startStage(page, 'Label', 'Yards');
    await page.getByRole('toolbar', { name: 'Drawing tools' }).waitFor();

    await page.keyboard.press('t');
    await expect.poll(() => page.getByRole('button', { name: 'Truck tool' }).getAttribute('aria-pressed')).toBe('true');
    await dragFrom(page, [200, 150], [400, 250]);
    await page.getByRole('button', { name: 'Truck 1', exact: true }).waitFor();
    // Select it (select mode, a click inside), then drag the transformer's rotate handle, 50
    // screen pixels above the top edge's middle, round to the right of the centre: a quarter turn.
    await page.keyboard.press('v');
    await clickAt(page, [300, 200]);
    const v = await canvasView(page);
    const [tx, ty] = v.screen([300, 150]);
    const [cx, cy] = v.screen([300, 200]);
    const handle: Vec = [tx, ty - 50];
    const arm = cy - handle[1];
    await page.mouse.move(...handle);
    await page.mouse.down();
    for (let i = 1; i <= 8; i++) {
      const a = (Math.PI / 2) * (i / 8);
      await page.mouse.move(cx + Math.sin(a) * arm, cy - Math.cos(a) * arm);
    }
    await page.mouse.up();
    await screenshot(page, 'editor-rotated-box');

    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const tools = ((await taskOf(taskId)).answer as Json).tools as Json[];
    const g = tools.find((t) => t.schemaId === 'truck')?.['rotated-bounding-box'] as Record<string, number>;
    expect(g).toBeDefined();
    // Turned about its centre (300, 200): a quarter turn clockwise, the size unchanged.
    expect(Math.abs((g.rotation ?? 0) - 90)).toBeLessThanOrEqual(2);
    expect(Math.abs((g.width ?? 0) - 200)).toBeLessThanOrEqual(1);
    expect(Math.abs((g.height ?? 0) - 100)).toBeLessThanOrEqual(1);
    // Its origin (the top-left corner before the turn) went round the centre with it: (350, 100).
    const r = ((g.rotation ?? 0) * Math.PI) / 180;
    const [ex, ey] = [300 + -100 * Math.cos(r) + 50 * Math.sin(r), 200 + -100 * Math.sin(r) - 50 * Math.cos(r)];
    expect(Math.abs((g.x ?? 0) - ex)).toBeLessThanOrEqual(1);
    expect(Math.abs((g.y ?? 0) - ey)).toBeLessThanOrEqual(1);
    expect(Math.abs((g.x ?? 0) - 350) + Math.abs((g.y ?? 0) - 100)).toBeLessThanOrEqual(8);
    // Kept to 1/100 of a pixel (and of a degree) after the turn, as a drawn box is: no float noise.
    for (const n of Object.values(g)) expect(Math.round(n * 100) / 100).toBe(n);
    await page.close();
  });

  it('relations join two objects (one-to-one) and three (group), stored in the answer', async () => {
    // Back to Label with the truck, from the review (an ordinary rejection).
    const reviewer = await pageFor(reviewerKey);
    expect(await startStage(reviewer, 'Review', 'Yards')).toBe(taskId);
    await reviewer.getByRole('button', { name: 'Reject' }).click();
    await reviewer.getByRole('heading', { name: 'No more tasks' }).waitFor();
    await reviewer.close();

    const page = await pageFor(labelerKey);
    expect(await startStage(page, 'Label', 'Yards')).toBe(taskId);
    await page.getByRole('button', { name: 'Truck 1', exact: true }).waitFor();
    await page.keyboard.press('c');
    await dragFrom(page, [520, 300], [640, 380]);
    await page.getByRole('button', { name: 'Car 1', exact: true }).waitFor();
    await page.keyboard.press('p');
    await clickAt(page, [700, 500]);
    await page.getByRole('button', { name: 'Person 1', exact: true }).waitFor();

    await page.getByText('No relation yet.').waitFor();
    const form = page.getByRole('group', { name: 'New relation' });
    const pick = (name: string) => form.getByRole('checkbox', { name, exact: true }).check();
    // One-to-one refuses three objects.
    await form.getByLabel('Kind').selectOption({ label: 'Tows (one-to-one)' });
    await pick('Truck 1');
    await pick('Car 1');
    await pick('Person 1');
    await form.getByText('A one-to-one relation joins exactly two objects.').waitFor();
    expect(await form.getByRole('button', { name: 'Add relation' }).isDisabled()).toBe(true);
    await form.getByRole('checkbox', { name: 'Person 1', exact: true }).uncheck();
    await form.getByRole('button', { name: 'Add relation' }).click();
    await page.getByText('Tows: Truck 1 – Car 1').waitFor();

    await form.getByLabel('Kind').selectOption({ label: 'Convoy (group)' });
    await pick('Truck 1');
    await pick('Car 1');
    await pick('Person 1');
    await form.getByRole('button', { name: 'Add relation' }).click();
    await page.getByText('Convoy: Truck 1 – Car 1 – Person 1').waitFor();
    await screenshot(page, 'editor-relations');

    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const answer = (await taskOf(taskId)).answer as Json;
    const ids = new Map(((answer.tools as Json[]) ?? []).map((t) => [t.schemaId as string, t.objectId as string]));
    const relations = answer.relations as Json[];
    expect(relations.map((r) => [r.schemaId, r.objectIds])).toEqual([
      ['tows', [ids.get('truck'), ids.get('car')]],
      ['convoy', [ids.get('truck'), ids.get('car'), ids.get('person')]],
    ]);
    for (const r of relations) expect(typeof r.relationId).toBe('string');
    await page.close();
  });

  it('a reviewer raises an issue on an object: the API holds its objectId', async () => {
    const page = await pageFor(reviewerKey);
    expect(await startStage(page, 'Review', 'Yards')).toBe(taskId);
    await page.getByRole('button', { name: 'Car 1', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Raise an issue' }).click();
    // Inside the car's box, away from the truck.
    await clickAt(page, [600, 360]);
    const form = page.getByRole('form', { name: 'New issue' });
    await form.getByText('New issue on Car 1').waitFor();
    await form.getByLabel('What is wrong').fill('This is a van, not a car');
    await form.getByRole('button', { name: 'Save issue' }).click();
    await page.getByText('This is a van, not a car').waitFor();
    await page.getByText('Issues (1 open)').waitFor();
    await screenshot(page, 'editor-issue-on-object');

    const car = (((await taskOf(taskId)).answer as Json).tools as Json[]).find((t) => t.schemaId === 'car');
    const { issues } = await api('GET', `/v2/issues?labelTask=${taskId}`);
    const issue = (issues as Json[])[0] as Json;
    expect(issue.objectId).toBe(car?.objectId);

    // The task's address opened afresh (the first script starts the task, project and image).
    await page.reload();
    await canvasView(page);
    await page.getByRole('heading', { name: 'Objects (3)' }).waitFor();
    await page.getByText('This is a van, not a car').waitFor();
    await page.close();
  });

  it('the task that left a Consensus stage shows its score to the reviewer', async () => {
    const page = await pageFor(labelerKey);
    // A consensus copy is worked like any Label task.
    const copy = await startStage(page, 'Copy A', 'Agreement');
    await page.getByRole('toolbar', { name: 'Drawing tools' }).waitFor();
    await page.keyboard.press('1');
    await expect.poll(() => page.getByRole('button', { name: 'Car tool' }).getAttribute('aria-pressed')).toBe('true');
    await dragFrom(page, [100, 80], [300, 200]);
    await page.getByRole('button', { name: 'Car 1', exact: true }).waitFor();
    await page.getByRole('radio', { name: 'Sunny' }).check();
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const parent = (await taskOf(copy)).parentTask as string;
    expect(parent).toBeTruthy();

    // The other copy through the API: a slightly wider car, the same weather.
    const tasks = (await api('GET', `/v2/project/${agreement}/tasks?stage=c2`)).tasks as Json[];
    const other = tasks.find((t) => t.parentTask === parent)?._id as string;
    await api('POST', `/v2/annotate/${other}?nextStage=true`, {
      answer: {
        tools: [{ schemaId: 'car', 'bounding-box': { x: 100, y: 80, width: 220, height: 120 } }],
        classifications: [{ schemaId: 'weather', answer: 'sun' }],
      },
    });
    const left = await taskOf(parent);
    expect(left.stage).toBe('Review');
    const score = left.consensusScore as number;
    expect(score).toBeGreaterThan(0.5);
    expect(score).toBeLessThan(1);

    const reviewer = await pageFor(reviewerKey);
    expect(await startStage(reviewer, 'Review', 'Agreement')).toBe(parent);
    await reviewer.getByText(`Consensus score: ${Math.round(score * 100)}%`).waitFor();
    await screenshot(reviewer, 'editor-consensus-score');
    await reviewer.close();
  });

  it('printed no errors in the pages', () => {
    expect(errors.flat()).toEqual([]);
  });
});
