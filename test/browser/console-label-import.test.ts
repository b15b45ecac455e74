import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, ONTOLOGY, W } from '../helpers/dataset-fixture.js';
import { START_STAGES } from '../helpers/label-files.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { signInAsOwner } from './helpers/sign-in.js';

/*
 * Labels from another tool brought in from the Assets page: a COCO file picked with the file
 * input (its format guessed from its name) becomes pre-labels of the two matching tasks, and the
 * page reports what it left out (an image of no asset, a category of no tool) in words. A broken
 * file is refused with the server's reason and writes nothing.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const coco = {
  images: [
    { id: 1, file_name: 'north.jpg', width: W, height: H },
    { id: 2, file_name: 'south.jpg', width: W, height: H },
    { id: 3, file_name: 'nowhere.jpg', width: W, height: H },
  ],
  annotations: [
    { id: 1, image_id: 1, category_id: 1, bbox: [2, 3, 10, 8], area: 80, iscrowd: 0 },
    { id: 2, image_id: 2, category_id: 1, bbox: [20, 10, 6, 6], area: 36, iscrowd: 0 },
    { id: 3, image_id: 2, category_id: 9, bbox: [1, 1, 4, 4], area: 16, iscrowd: 0 },
    { id: 4, image_id: 3, category_id: 1, bbox: [1, 1, 4, 4], area: 16, iscrowd: 0 },
  ],
  categories: [
    { id: 1, name: 'Car' },
    { id: 9, name: 'Bicycle' },
  ],
};

describe('importing labels from the Assets page', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let context: BrowserContext;
  let pid = '';
  const tasks: Record<string, string> = {};

  beforeAll(async () => {
    server = await startConsoleServer(engine);
    pid = (await server.call('POST', '/v2/project', { body: { name: 'Imported labels' } })).json().data.project
      ._id as string;
    await server.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY, stages: START_STAGES } });
    const res = await server.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: ['north.jpg', 'south.jpg'].map((name) => ({
          data: `${server.url}/missing/${name}`,
          externalId: name,
          metadata: { width: W, height: H },
        })),
      },
    });
    for (const a of res.json().data.assets as { externalId: string; taskId: string }[]) tasks[a.externalId] = a.taskId;
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  const boxesOf = async (name: string) => {
    const task = (await server.call('GET', `/v2/task/${tasks[name]}`)).json().data.task as Json;
    return ((task.answer?.tools ?? []) as Json[]).map((o) => o['bounding-box']);
  };

  it('takes a COCO file as pre-labels and says what it left out', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInAsOwner(page, server, `/projects/${pid}/assets`);
    const section = page.getByRole('region', { name: 'Import labels' });
    await section.waitFor();

    await section.getByLabel('Label file').setInputFiles({
      name: 'instances.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(coco)),
    });
    await expect.poll(() => section.getByLabel('Label format').inputValue()).toBe('coco');
    await section.getByRole('button', { name: 'Import labels' }).click();

    const report = section.getByLabel('Label import report');
    await report.getByRole('status').waitFor();
    expect(await report.getByRole('status').textContent()).toBe('Imported 2 objects into 2 tasks from 3 images.');
    const leftOut = await report.getByRole('listitem').allTextContents();
    expect(leftOut).toContainEqual(
      expect.stringMatching(/Category “Bicycle” matches no tool of the ontology \(1 object\)/),
    );
    expect(leftOut).toContainEqual(expect.stringMatching(/^nowhere\.jpg: /));
    await screenshot(page, 'console-label-import-report');

    expect(await boxesOf('north.jpg')).toEqual([expect.objectContaining({ x: 2, y: 3, width: 10, height: 8 })]);
    expect(await boxesOf('south.jpg')).toEqual([expect.objectContaining({ x: 20, y: 10, width: 6, height: 6 })]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('refuses a broken file with the reason, writing nothing', async () => {
    const before = await boxesOf('north.jpg');
    const page = await context.newPage();
    await page.goto(`/projects/${pid}/assets`); // the context is signed in already
    const section = page.getByRole('region', { name: 'Import labels' });
    await section.getByLabel('Label file').setInputFiles({
      name: 'annotations.xml',
      mimeType: 'application/xml',
      buffer: Buffer.from('<annotations><image name="north.jpg"><box label="Car"></image></annotations>'),
    });
    await section.getByLabel('Label format').selectOption('cvat');
    await section.getByRole('button', { name: 'Import labels' }).click();
    const alert = section.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/not well-formed XML/);
    await screenshot(page, 'console-label-import-refused');
    expect(await boxesOf('north.jpg')).toEqual(before);
    await page.close();
  });
});
