import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzip } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';
import { streetOntology } from '../helpers/street-scene.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import { clickAt, dragFrom, screenOf, signInWithKey, startStage } from './helpers/editor-page.js';

/*
 * The issue's "Done means", in a browser with a real mouse and keyboard: a labeler takes a task
 * from the queue, draws a box, a polygon and a point, is refused a submit until the required
 * question is answered; the reviewer rejects with an issue pinned on the image; the labeler moves
 * a vertex and resubmits; the reviewer accepts; the export and the webhook payload hold the
 * geometry. A text task gets two NER spans; a closed tab's draft is there when it opens again.
 */

const engine = ENGINES[0] ?? 'sqlite';
const IMAGE = { width: 800, height: 600 };
const STORY = 'Ada Lovelace wrote the first program in London.';
type Json = Record<string, unknown>;

/**
 * In the page: the screen points just inside the first and the last character of [from, to) of
 * the text element (its text is cut into spans and marks). A string: the DOM lives in the page.
 */
const CHAR_EDGES = `(el, [from, to]) => {
  const locate = (i) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let left = i;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (left < n.textContent.length) return [n, left];
      left -= n.textContent.length;
    }
    throw new Error('no character ' + i);
  };
  const rect = (i) => {
    const [node, at] = locate(i);
    const r = document.createRange();
    r.setStart(node, at);
    r.setEnd(node, at + 1);
    const b = r.getBoundingClientRect();
    return { x: b.left, y: b.top + b.height / 2, w: b.width };
  };
  const s = rect(from);
  const e = rect(to - 1);
  return [[s.x + 1, s.y], [e.x + e.w - 1, e.y]];
}`;

describe('the labeling and review editor', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let receiver: Receiver;
  let browser: Browser;
  let labelerKey = '';
  let reviewerKey = '';
  let streets = '';
  let stories = '';
  let clips = '';
  let lost = '';
  let taskId = '';
  const contexts: BrowserContext[] = [];
  const errors: string[][] = [];

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };
  const taskOf = async (id: string) => (await api('GET', `/v2/task/${id}`)).task as Json;

  /** A signed-in page for a user of the organization (the sign-in form's API key way). */
  const pageFor = async (key: string): Promise<Page> => {
    const context = await newContext(browser, server.url);
    contexts.push(context);
    const page = await context.newPage();
    await signInWithKey(page, key);
    errors.push(pageErrors(page));
    return page;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    assets = await serveAssets({
      '/street-1.png': { type: 'image/png', body: streetPng(IMAGE.width, IMAGE.height) },
      '/street-2.png': { type: 'image/png', body: streetPng(IMAGE.width, IMAGE.height) },
      '/story.txt': { type: 'text/plain; charset=utf-8', body: STORY },
      // A video link that answers a web page (a sign-in page, an expired share), not a video.
      '/clip-1.webm': { type: 'text/html; charset=utf-8', body: '<!doctype html><title>Sign in</title>' },
      // An image link that answers a web page, and a file of the image's type holding no picture.
      '/gone.png': { type: 'text/html; charset=utf-8', body: '<!doctype html><title>Sign in</title>' },
      '/torn.png': { type: 'image/png', body: Buffer.from('\x89PNG\r\n\x1a\n not the rest of a picture') },
    });
    server = await startConsoleServer(engine, { worker: true, env: { ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    labelerKey = await server.addUser('labeler@example.com');
    reviewerKey = await server.addUser('reviewer@example.com');

    streets = ((await api('POST', '/v2/project', { name: 'Streets' })).project as Json)._id as string;
    await api('POST', `/v2/project/${streets}`, {
      categorySchema: {
        tools: [
          { schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#d92d20', shortcutKey: 'c' },
          { schemaId: 'road', title: 'Road', tool: 'polygon', color: '#1570ef' },
          { schemaId: 'sign', title: 'Sign', tool: 'point', color: '#12b76a' },
        ],
        // The shared street scene's required weather question (Sunny, Rainy).
        classifications: streetOntology({ weatherRequired: true }).classifications,
      },
      errorCodesEnabled: true,
      errorSchema: {
        codes: [
          { code: 'E1', name: 'Box too loose' },
          { code: 'E2', name: 'Missing object' },
        ],
      },
      idleTimeout: 300,
      stages: [
        { id: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Review'], rememberAssignee: true },
        { id: 'Review', name: 'Review', type: 'Review', next: ['Hook', 'Label'] },
        { id: 'Hook', type: 'Webhook', next: ['Complete'], webhook: { url: `${receiver.url}/hook` } },
        { id: 'Complete', type: 'Complete', next: [] },
      ],
    });
    await api('POST', `/v2/project/${streets}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    await api('POST', `/v2/project/${streets}/assigned`, { assignees: ['reviewer@example.com'], role: 'Reviewer' });
    await api('POST', `/v2/project/${streets}/cloud`, {
      assets: [
        { data: `${assets.url}/street-1.png`, externalId: 'street-1' },
        { data: `${assets.url}/street-2.png`, externalId: 'street-2' },
      ],
    });
    await api('POST', `/v2/project/${streets}/updatePriority`, {
      priority: 10,
      filters: { externalIds: ['street-1'] },
    });

    stories = ((await api('POST', '/v2/project', { name: 'Stories' })).project as Json)._id as string;
    await api('POST', `/v2/project/${stories}`, {
      categorySchema: {
        tools: [
          { schemaId: 'person', title: 'Person', tool: 'ner', color: '#7a5af8', shortcutKey: 'p' },
          { schemaId: 'place', title: 'Place', tool: 'ner', color: '#f79009', shortcutKey: 'l' },
        ],
        classifications: [],
      },
    });
    await api('POST', `/v2/project/${stories}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    await api('POST', `/v2/project/${stories}/cloud`, {
      assets: [{ data: `${assets.url}/story.txt`, externalId: 'story-1' }],
    });

    clips = ((await api('POST', '/v2/project', { name: 'Clips' })).project as Json)._id as string;
    await api('POST', `/v2/project/${clips}`, { categorySchema: streetOntology({ weatherRequired: true }) });
    await api('POST', `/v2/project/${clips}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    await api('POST', `/v2/project/${clips}/cloud`, {
      assets: [{ data: `${assets.url}/clip-1.webm`, externalId: 'clip-1', metadata: {} }],
    });
    // A box a plugin drew on the clip: the questions-only editor keeps it.
    const clipTask = ((await api('GET', `/v2/project/${clips}/tasks`)).tasks as Json[])[0]?._id as string;
    await api('POST', `/v2/annotate/${clipTask}`, {
      answer: { tools: [{ schemaId: 'car', 'bounding-box': { x: 1, y: 2, width: 3, height: 4 } }] },
    });

    lost = ((await api('POST', '/v2/project', { name: 'Lost' })).project as Json)._id as string;
    await api('POST', `/v2/project/${lost}`, { categorySchema: streetOntology({ weatherRequired: true }) });
    await api('POST', `/v2/project/${lost}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    await api('POST', `/v2/project/${lost}/cloud`, {
      assets: [
        { data: `${assets.url}/gone.png`, externalId: 'gone' },
        { data: `${assets.url}/torn.png`, externalId: 'torn' },
      ],
    });
    for (const t of (await api('GET', `/v2/project/${lost}/tasks`)).tasks as Json[]) {
      await api('POST', `/v2/annotate/${t._id as string}`, {
        answer: { tools: [{ schemaId: 'car', 'bounding-box': { x: 5, y: 6, width: 7, height: 8 } }] },
      });
    }

    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    await assets?.close();
    await receiver?.close();
  });

  it('a labeler draws a box, a polygon and a point; submit waits for the required question', async () => {
    const page = await pageFor(labelerKey);
    await page.goto('/work');
    await page.getByRole('link', { name: 'Work', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Start Label in Streets' }).waitFor();
    await screenshot(page, 'editor-queue');
    taskId = await startStage(page, 'Label', 'Streets');
    await page.getByRole('toolbar', { name: 'Drawing tools' }).waitFor();
    await screenOf(page, [0, 0]);

    // The car: its shortcut key from the ontology, then a drag over the red block.
    await page.keyboard.press('c');
    await expect.poll(() => page.getByRole('button', { name: 'Car tool' }).getAttribute('aria-pressed')).toBe('true');
    await dragFrom(page, [100, 80], [300, 200]);
    await page.getByRole('button', { name: 'Car 1', exact: true }).waitFor();

    // The road: the polygon tool's digit (no shortcut in the ontology), three clicks, closed on the first.
    await page.keyboard.press('1');
    await clickAt(page, [50, 400]);
    await clickAt(page, [700, 400]);
    await clickAt(page, [600, 560]);
    await clickAt(page, [50, 400]);
    await page.getByRole('button', { name: 'Road 1', exact: true }).waitFor();

    // The sign: one click.
    await page.keyboard.press('2');
    await clickAt(page, [500, 150]);
    await page.getByRole('button', { name: 'Sign 1', exact: true }).waitFor();
    await page.keyboard.press('v');
    await screenshot(page, 'editor-drawn');

    // Submit is refused: the weather is required, and said so on the question.
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('"Weather" is required').waitFor();
    await page.getByText('Not submitted: one answer is missing.').waitFor();
    await screenshot(page, 'editor-required');
    expect((await taskOf(taskId)).stage).toBe('Label');

    await page.getByRole('radio', { name: 'Sunny' }).check();
    await page.getByRole('button', { name: 'Submit' }).click();
    // The next task of the stage opens: street-2 (street-1 had the higher priority), saying
    // what became of the one submitted.
    await page.waitForURL((url) => !url.pathname.endsWith(taskId));
    await page.getByRole('status').filter({ hasText: 'Submitted street-1. This is the next task.' }).waitFor();
    await screenshot(page, 'editor-submitted');

    const task = await taskOf(taskId);
    expect(task.stage).toBe('Review');
    expect(task.totalDuration as number).toBeGreaterThan(0);
    const tools = (task.answer as Json).tools as Json[];
    const box = tools.find((t) => t.schemaId === 'car')?.['bounding-box'] as Json;
    // Within a pixel of the drag, whatever the zoom the fit chose.
    expect(Math.abs((box.x as number) - 100)).toBeLessThanOrEqual(1);
    expect(Math.abs((box.y as number) - 80)).toBeLessThanOrEqual(1);
    expect(Math.abs((box.width as number) - 200)).toBeLessThanOrEqual(1);
    expect(Math.abs((box.height as number) - 120)).toBeLessThanOrEqual(1);
    const road = tools.find((t) => t.schemaId === 'road')?.polygon as [number, number][];
    expect(road).toHaveLength(3);
    const corners: [number, number][] = [
      [50, 400],
      [700, 400],
      [600, 560],
    ];
    for (const [i, [x, y]] of corners.entries()) {
      expect(Math.abs((road[i]?.[0] ?? 0) - x)).toBeLessThanOrEqual(1);
      expect(Math.abs((road[i]?.[1] ?? 0) - y)).toBeLessThanOrEqual(1);
    }
    const sign = tools.find((t) => t.schemaId === 'sign')?.point as [number, number];
    expect(Math.abs(sign[0] - 500) + Math.abs(sign[1] - 150)).toBeLessThanOrEqual(2);
    expect((task.answer as Json).classifications).toEqual([{ schemaId: 'weather', answer: 'sun' }]);
  });

  it("a closed tab's draft is there when the task opens again", async () => {
    const page = await pageFor(labelerKey);
    const second = await startStage(page, 'Label', 'Streets');
    expect(second).not.toBe(taskId);
    await screenOf(page, [0, 0]);
    await page.keyboard.press('c');
    await dragFrom(page, [400, 100], [480, 180]);
    await page.getByRole('button', { name: 'Car 1', exact: true }).waitFor();
    // Closed at once, before the timed draft: the pagehide save carries it.
    await page.close({ runBeforeUnload: true });
    await expect.poll(async () => ((await taskOf(second)).answer as Json).tools, { timeout: 10_000 }).toHaveLength(1);
    expect((await taskOf(second)).isDraft).toBe(true);

    const again = await pageFor(labelerKey);
    expect(await startStage(again, 'Label', 'Streets')).toBe(second);
    await again.getByRole('button', { name: 'Car 1', exact: true }).waitFor();
    await again.getByText('Draft restored').waitFor();
    await screenshot(again, 'editor-draft-restored');
    await again.close();
  });

  it('the reviewer rejects with an issue pinned at a point of the image', async () => {
    const page = await pageFor(reviewerKey);
    expect(await startStage(page, 'Review', 'Streets')).toBe(taskId);
    await screenOf(page, [0, 0]);
    await page.getByRole('button', { name: 'Raise an issue' }).click();
    await clickAt(page, [650, 120]);
    const form = page.getByRole('form', { name: 'New issue' });
    await form.getByText(/New issue at \((649|650|651), (119|120|121)\)/).waitFor();
    await form.getByLabel('What is wrong').fill('A second car is missing here');
    await form.getByLabel('E2 Missing object').check();
    await form.getByRole('button', { name: 'Save issue' }).click();
    await page.getByText('A second car is missing here').waitFor();
    await page.getByText('Issues (1 open)').waitFor();
    await screenshot(page, 'editor-review-issue');

    const { issues } = await api('GET', `/v2/issues?labelTask=${taskId}`);
    const issue = (issues as Json[])[0] as Json;
    const [px, py] = JSON.parse(issue.position as string) as [number, number];
    expect(Math.abs(px - 650) + Math.abs(py - 120)).toBeLessThanOrEqual(2);
    expect(issue.errorCodes).toEqual(['E2']);

    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    await page.getByText(/^Rejected street-1: it goes back to its labeler\.$/).waitFor();
    expect((await taskOf(taskId)).stage).toBe('Label');
    expect((await taskOf(taskId)).reviewStatus).toBe('Rejected');
  });

  it('the labeler sees the issue, moves a vertex and resubmits', async () => {
    const page = await pageFor(labelerKey);
    // Back to its labeler (rememberAssignee), who also holds the draft task: the returned one comes first.
    expect(await startStage(page, 'Label', 'Streets')).toBe(taskId);
    await page.getByText('Returned by reviewer@example.com: 1 open issue, see below.').waitFor();
    await page.getByText('A second car is missing here').waitFor();
    await page.getByText('Issues (1 open)').waitFor();
    // Only its creator, a Lead or a Manager may resolve an issue: the labeler gets no button.
    expect(await page.getByRole('button', { name: /^Resolve issue/ }).count()).toBe(0);
    await screenOf(page, [0, 0]);
    await page.getByRole('button', { name: 'Road 1', exact: true }).click();
    await dragFrom(page, [700, 400], [740, 380]);
    await screenshot(page, 'editor-labeler-fix');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(taskId));
    const task = await taskOf(taskId);
    expect(task.stage).toBe('Review');
    const road = ((task.answer as Json).tools as Json[]).find((t) => t.schemaId === 'road')?.polygon as number[][];
    expect(Math.abs((road[1]?.[0] ?? 0) - 740)).toBeLessThanOrEqual(1);
    expect(Math.abs((road[1]?.[1] ?? 0) - 380)).toBeLessThanOrEqual(1);
    await page.close();
  });

  it('the reviewer resolves the issue and accepts; the export and the webhook hold the geometry', async () => {
    const page = await pageFor(reviewerKey);
    expect(await startStage(page, 'Review', 'Streets')).toBe(taskId);
    await page.getByRole('button', { name: 'Resolve issue “A second car is missing here”' }).click();
    await page.getByText('Issues (0 open, 1 resolved)').waitFor();
    await screenshot(page, 'editor-review-accept');
    await page.getByRole('button', { name: 'Accept' }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();

    await expect.poll(async () => (await taskOf(taskId)).status, { timeout: 20_000 }).toBe('Completed');
    const hook = receiver.received.find((r) => (r.body?.task as Json | undefined)?.taskId === taskId);
    const hooked = ((hook?.body?.task as Json).tools as Json[]).find((t) => t.schemaId === 'car');
    expect(Math.abs(((hooked?.['bounding-box'] as Json).x as number) - 100)).toBeLessThanOrEqual(1);

    const { exportPath } = await api('GET', `/v2/exportV3?project=${streets}&format=json`);
    const zip = Buffer.from(await (await fetch(exportPath as string)).arrayBuffer());
    const items = JSON.parse((await unzip(zip))[0]?.text ?? '[]') as Json[];
    const exported = items.find((i) => (i.task as Json).taskId === taskId || i.externalId === 'street-1') as Json;
    const tools = (exported.task as Json).tools as Json[];
    const box = tools.find((t) => t.schemaId === 'car')?.['bounding-box'] as Json;
    expect(Math.abs((box.width as number) - 200)).toBeLessThanOrEqual(1);
    const road = tools.find((t) => t.schemaId === 'road')?.polygon as number[][];
    expect(Math.abs((road[1]?.[0] ?? 0) - 740)).toBeLessThanOrEqual(1);
  });

  it('a text task gets two NER spans', async () => {
    const page = await pageFor(labelerKey);
    const id = await startStage(page, 'Label', 'Stories');
    const text = page.getByRole('document', { name: 'Text to annotate' });
    await text.getByText(STORY).waitFor();
    /** Selects the characters [from, to) of the story with a mouse drag. */
    const select = async (from: number, to: number) => {
      const element = `document.querySelector('[role=document][aria-label="Text to annotate"]')`;
      const [a, b] = (await page.evaluate(`(${CHAR_EDGES})(${element}, [${from}, ${to}])`)) as [number, number][];
      await page.mouse.move(a?.[0] ?? 0, a?.[1] ?? 0);
      await page.mouse.down();
      await page.mouse.move(b?.[0] ?? 0, b?.[1] ?? 0, { steps: 5 });
      await page.mouse.up();
    };
    const ada = STORY.indexOf('Ada Lovelace');
    await select(ada, ada + 'Ada Lovelace'.length);
    await page.getByRole('button', { name: 'Tag as Person' }).click();
    await page.getByRole('button', { name: 'Person 1', exact: true }).waitFor();
    const london = STORY.indexOf('London');
    await select(london, london + 'London'.length);
    await page.keyboard.press('l');
    await page.getByRole('button', { name: 'Place 1', exact: true }).waitFor();
    await screenshot(page, 'editor-text');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const tools = ((await taskOf(id)).answer as Json).tools as Json[];
    expect(tools.map((t) => [t.schemaId, t.ner])).toEqual([
      ['person', { start: ada, end: ada + 12 }],
      ['place', { start: london, end: london + 6 }],
    ]);
  });

  it('a video link that answers a web page says so in words and offers the questions only; the drawn objects are kept', async () => {
    const page = await pageFor(labelerKey);
    const id = await startStage(page, 'Label', 'Clips');
    await expect
      .poll(() => page.getByRole('alert').allTextContents())
      .toContain('The address answered a web page, not a video. The answer saved so far is kept.');
    await page.getByRole('radio', { name: 'Rainy' }).check();
    await screenshot(page, 'editor-video-unreadable');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const task = await taskOf(id);
    expect(task.status).toBe('Completed');
    const answer = task.answer as Json;
    expect(answer.classifications).toEqual([{ schemaId: 'weather', answer: 'rain' }]);
    expect((answer.tools as Json[]).map((t) => t['bounding-box'])).toEqual([{ x: 1, y: 2, width: 3, height: 4 }]);
  });

  it('an image that cannot be read says why in words and offers the questions only; the drawn objects are kept', async () => {
    const page = await pageFor(labelerKey);
    const said = {
      gone: 'The address answered a web page, not a picture. The answer saved so far is kept.',
      torn: 'The file is not an image this browser can show. The answer saved so far is kept.',
    };
    for (let n = 0; n < 2; n++) {
      const id = await startStage(page, 'Label', 'Lost');
      const { externalId } = await taskOf(id);
      await expect.poll(() => page.getByRole('alert').allTextContents()).toContain(said[externalId as 'gone' | 'torn']);
      // No drawing tools without the picture.
      expect(await page.getByRole('button', { name: 'Car tool' }).count()).toBe(0);
      await page.getByRole('radio', { name: 'Sunny' }).check();
      await screenshot(page, `editor-image-unreadable-${externalId as string}`);
      await page.getByRole('button', { name: 'Submit' }).click();
      await expect.poll(async () => (await taskOf(id)).status).toBe('Completed');
      const answer = (await taskOf(id)).answer as Json;
      expect(answer.classifications).toEqual([{ schemaId: 'weather', answer: 'sun' }]);
      expect((answer.tools as Json[]).map((t) => t['bounding-box'])).toEqual([{ x: 5, y: 6, width: 7, height: 8 }]);
    }
  });

  it('printed no errors in the pages', () => {
    expect(errors.flat()).toEqual([]);
  });
});
