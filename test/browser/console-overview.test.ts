import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streetOntology } from '../helpers/street-scene.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { apiAs } from './helpers/project-data.js';
import { signInAsOwner } from './helpers/sign-in.js';

const engine = ENGINES[0] ?? 'sqlite';
const ANN = 'ann@example.com';

describe('the console: overview filters and the performance table', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let projectId = '';
  let emptyProjectId = '';

  beforeAll(async () => {
    server = await startConsoleServer(engine);
    const owner = apiAs(server);
    const { project } = await owner<{ project: { _id: string } }>('POST', '/v2/project', { name: 'Harbour' });
    projectId = project._id;
    const empty = await owner<{ project: { _id: string } }>('POST', '/v2/project', { name: 'Nothing yet' });
    emptyProjectId = empty.project._id;
    await owner('POST', `/v2/project/${projectId}`, { categorySchema: streetOntology() });
    await owner('POST', `/v2/project/${projectId}`, {
      stages: [
        { id: 'Start', name: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Labelling', type: 'Label', next: ['Complete'] },
        { id: 'Complete', name: 'Complete', type: 'Complete' },
      ],
    });
    await owner('POST', `/v2/batches/${projectId}`, { batches: 'Night' });
    const assets = ['h-1.jpg', 'h-2.jpg', 'h-3.jpg'].map((n) => ({
      data: `https://img.example.com/${n}`,
      externalId: n,
    }));
    await owner('POST', `/v2/project/${projectId}/cloud`, { assets });
    const { tasks } = await owner<{ tasks: { _id: string; externalId: string; asset?: string }[] }>(
      'GET',
      `/v2/project/${projectId}/tasks?fields=_id,externalId`,
    );
    const id = (ext: string) => tasks.find((t) => t.externalId === ext)?._id ?? '';
    // h-3's asset goes into the batch Night; Ann labels it, the owner labels h-1 and h-2.
    const { assets: listed } = await owner<{ assets: { _id: string; externalId: string }[] }>(
      'GET',
      `/v2/project/${projectId}/assets?limit=10`,
    );
    await owner('POST', '/v2/assignBatches', {
      batches: 'Night',
      assets: listed.filter((a) => a.externalId === 'h-3.jpg').map((a) => a._id),
    });
    const annKey = await server.addUser(ANN, 'admin');
    const ann = apiAs(server, annKey);
    const submit = (as: typeof owner, ext: string, duration: number) =>
      as('POST', `/v2/annotate/${id(ext)}?nextStage=true`, {
        answer: { classifications: [{ schemaId: 'weather', answer: 'sun' }] },
        duration,
      });
    await submit(owner, 'h-1.jpg', 30_000);
    await submit(owner, 'h-2.jpg', 50_000);
    await submit(ann, 'h-3.jpg', 90_000);

    browser = await launchBrowser();
    context = await newContext(browser, server.url);
    page = await context.newPage();
    await signInAsOwner(page, server, `/projects/${projectId}/overview`);
    errors = pageErrors(page);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  const table = () => page.getByRole('table', { name: 'Performance per person and stage' });
  const rows = () => table().locator('tbody tr');
  const rowOf = (email: string) => table().locator('tbody tr', { has: page.getByRole('rowheader', { name: email }) });

  it("shows each person's real figures in the performance table and chart", async () => {
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect.poll(() => rows().count()).toBe(2);
    // Owner: two submissions, 80 s in all, 40 s a task; Ann: one, 90 s.
    expect(await rowOf(server.ownerEmail).locator('td').allTextContents()).toEqual([
      'Labelling',
      '2',
      '0',
      '0',
      '0',
      '1.3 min',
      '40 s',
      '0',
    ]);
    expect(await rowOf(ANN).locator('td').allTextContents()).toEqual([
      'Labelling',
      '1',
      '0',
      '0',
      '0',
      '1.5 min',
      '90 s',
      '0',
    ]);
    const people = page.getByRole('img', { name: /^Tasks submitted or reviewed per person:/ });
    // One bar per person, in the report's order (by e-mail).
    const bars = [`${ANN} 1`, `${server.ownerEmail} 2`].sort();
    expect(await people.getAttribute('aria-label')).toBe(`Tasks submitted or reviewed per person: ${bars.join(', ')}`);
    // Time per task draws from the same submissions (Labelling: (30 + 50 + 90) / 3 = 56.7 s).
    await page.getByRole('img', { name: 'Average seconds per stage: Labelling 56.7' }).waitFor();
    // The chart's legend tells the two kinds of work apart.
    await people.locator('svg text', { hasText: 'Submitted' }).first().waitFor();
    await people.locator('svg text', { hasText: 'Reviewed' }).first().waitFor();
    // At 1440 px every column of the table is in view: none is cut off at the card's edge.
    await page.setViewportSize({ width: 1440, height: 900 });
    const cut = () =>
      page.evaluate(`(() => {
        const box = document.querySelector('.performance .table-scroll');
        return box ? box.scrollWidth - box.clientWidth : -1;
      })()`) as Promise<number>;
    await expect.poll(cut).toBeLessThanOrEqual(0);
    await screenshot(page, 'console-overview-performance');
    // At 1024 px the table scrolls inside its card: the page itself does not overflow sideways.
    await page.setViewportSize({ width: 1024, height: 800 });
    await expect
      .poll(() => page.evaluate('document.documentElement.scrollWidth - window.innerWidth') as Promise<number>)
      .toBeLessThanOrEqual(0);
    await screenshot(page, 'console-overview-1024');
    await page.setViewportSize({ width: 1400, height: 900 });
    expect(errors).toEqual([]);
  });

  it('narrows the figures to a batch and to a time range', async () => {
    await page.getByLabel('Batch', { exact: true }).selectOption({ label: 'Night' });
    await expect.poll(() => rows().count()).toBe(1);
    await rowOf(ANN).waitFor();
    await page.getByRole('img', { name: `Tasks submitted or reviewed per person: ${ANN} 1` }).waitFor();
    await page.getByText('These charts count the whole project: the metrics take no time or batch filter.').waitFor();
    await screenshot(page, 'console-overview-batch');
    await page.getByLabel('Batch', { exact: true }).selectOption({ label: 'Every batch' });
    await expect.poll(() => rows().count()).toBe(2);
    await page.getByLabel('Time', { exact: true }).selectOption({ label: 'Last 24 hours' });
    await expect.poll(() => rows().count()).toBe(2);
    await page.getByLabel('Time', { exact: true }).selectOption({ label: 'Between dates' });
    await page.getByLabel('From (UTC)').fill('2020-01-01');
    await page.getByLabel('To (UTC, included)').fill('2020-01-31');
    await page.getByText('No work by people in this time and batch yet.').first().waitFor();
    expect(await table().count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('draws tasks per stage along the flow for a workflow stored in another order', async () => {
    const owner = apiAs(server);
    const { project } = await owner<{ project: { _id: string } }>('POST', '/v2/project', { name: 'Stored backwards' });
    // Done first, a Review before Start, a Hold stage no route reaches.
    await owner('POST', `/v2/project/${project._id}`, {
      stages: [
        { id: 'Done', name: 'Done', type: 'Complete', next: [] },
        { id: 'Review', name: 'Review', type: 'Review', next: ['Done', 'Label'] },
        { id: 'Start', name: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Parked', name: 'Parked', type: 'Hold', next: ['Done'] },
        { id: 'Label', name: 'Labelling', type: 'Label', next: ['Review'] },
      ],
    });
    await page.goto(`/projects/${project._id}/overview`);
    const perStage = page.getByRole('img', { name: /^Tasks per stage:/ });
    await perStage.waitFor();
    expect(await perStage.getAttribute('aria-label')).toBe(
      'Tasks per stage: Start 0, Labelling 0, Review 0, Done 0, Parked 0',
    );
    // As a person reads the axis: left to right.
    const names = ['Start', 'Labelling', 'Review', 'Done', 'Parked'];
    await perStage.locator('svg text', { hasText: 'Parked' }).first().waitFor();
    const xs = await Promise.all(
      names.map(async (n) => (await perStage.locator('svg text', { hasText: n }).first().boundingBox())?.x ?? 0),
    );
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    await screenshot(page, 'console-overview-flow-order');
    expect(errors).toEqual([]);
  });

  it('says "no data yet" for time per task on a project nobody worked on', async () => {
    await page.goto(`/projects/${emptyProjectId}/overview`);
    const time = page.getByRole('region', { name: 'Time per task (seconds)' });
    await time.getByText('No data yet: time is counted when people submit or review work.').waitFor();
    expect(await time.locator('svg').count()).toBe(0);
    await screenshot(page, 'console-overview-empty');
    expect(errors).toEqual([]);
  });
});
