import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streetOntology } from '../helpers/street-scene.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import { dragFrom, signInWithKey, startStage } from './helpers/editor-page.js';
import { apiAs } from './helpers/project-data.js';
import { signInAsOwner } from './helpers/sign-in.js';

/*
 * The Quality page after the work it measures: a labeler works a benchmark in the editor (a box
 * drawn over the reference's), two consensus rounds are decided (one agreeing, one half), the
 * reviewer accepts one task and rejects the other, each with an issue; the Manager then reads
 * the labeler's score, the agreement per class, the rejection rate and the issues per error
 * code, and narrows them to a batch.
 */

const engine = ENGINES[0] ?? 'sqlite';
const LABELER = 'lena@example.com';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const STAGES = [
  { id: 'Start', name: 'Start', type: 'Start', next: ['L'] },
  { id: 'L', name: 'Labelling', type: 'Label', next: ['C'] },
  { id: 'C', name: 'Consensus', type: 'Consensus', next: ['R', 'R'], consensusConfig: { threshold: 1 } },
  { id: 'c1', name: 'Copy one', type: 'Label', next: ['C'], consensusId: 'C' },
  { id: 'c2', name: 'Copy two', type: 'Label', next: ['C'], consensusId: 'C' },
  { id: 'R', name: 'Review', type: 'Review', next: ['Done', 'Hold'] },
  { id: 'Hold', name: 'Disputed', type: 'Hold', next: ['Done'] },
  { id: 'Done', name: 'Done', type: 'Complete' },
];
const REFERENCE = {
  tools: [{ schemaId: 'car', objectId: 'ref', 'bounding-box': { x: 200, y: 150, width: 200, height: 100 } }],
  classifications: [],
};
const car = (width: number) => ({ schemaId: 'car', 'bounding-box': { x: 10, y: 10, width, height: 20 } });
const copy = (weather: string, width: number) => ({
  tools: [car(width)],
  classifications: [{ schemaId: 'weather', answer: weather }],
});

describe('the console: the Quality page', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pid = '';
  let labelerKey = '';

  beforeAll(async () => {
    assets = await serveAssets({ '/lot.png': { type: 'image/png', body: streetPng(800, 600) } });
    server = await startConsoleServer(engine);
    const owner = apiAs(server);
    pid = (await owner<Json>('POST', '/v2/project', { name: 'Harbour quality' })).project._id;
    await owner('POST', `/v2/project/${pid}`, {
      categorySchema: {
        ...streetOntology(),
        tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#d92d20', shortcutKey: 'c' }],
      },
      stages: STAGES,
      errorCodesEnabled: true,
      errorSchema: {
        codes: [
          { code: 'LOOSE', name: 'Box too loose' },
          { code: 'MISSED', name: 'Missed object' },
        ],
      },
    });
    await owner('POST', `/v2/batches/${pid}`, { batches: 'Night' });
    const imported = await owner<Json>('POST', `/v2/project/${pid}/cloud`, {
      assets: ['bench', 'one', 'two'].map((name) => ({
        data: `${assets.url}/lot.png?${name}`,
        externalId: name,
        ...(name === 'one' ? { batches: ['Night'] } : {}),
      })),
    });
    const [benchmark, one, two] = (imported.assets as Json[]).map((a) => a.taskId as string);
    labelerKey = await server.addUser(LABELER);
    await owner('POST', `/v2/project/${pid}/assigned`, { assignees: [LABELER], role: 'Labeler' });
    await owner('POST', `/v2/project/${pid}/benchmarks`, { tasks: [benchmark], answer: REFERENCE });
    await owner('POST', `/v2/project/${pid}`, { benchmarkEnabled: true, benchmarkRatio: 1 });
    // Two tasks labelled and sent through consensus: task one's copies agree, task two's half.
    for (const id of [one, two])
      await owner('POST', `/v2/annotate/${id}?nextStage=true`, { answer: copy('Sunny', 20) });
    const copies = async (stage: string) =>
      (await owner<Json>('GET', `/v2/project/${pid}/tasks?limit=100&stage=${stage}`)).tasks as Json[];
    const [firsts, seconds] = [await copies('c1'), await copies('c2')];
    const of = (list: Json[], parent: string | undefined) => list.find((c) => c.parentTask === parent)?._id;
    for (const [parent, a, b] of [
      [one, copy('Sunny', 20), copy('Sunny', 20)],
      [two, copy('Sunny', 20), copy('Rainy', 10)],
    ] as const) {
      await owner('POST', `/v2/annotate/${of(firsts, parent)}?nextStage=true`, { answer: a });
      await owner('POST', `/v2/annotate/${of(seconds, parent)}?nextStage=true`, { answer: b });
    }
    await owner('POST', `/v2/review/${one}`, { reviewStatus: 'Accepted' });
    await owner('POST', '/v2/issues', { content: 'a bit loose', labelTask: one, errorCodes: ['LOOSE'] });
    await owner('POST', `/v2/review/${two}`, { reviewStatus: 'Rejected' });
    await owner('POST', '/v2/issues', { content: 'second car missed', labelTask: two, errorCodes: ['MISSED'] });
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  const table = (name: string) => page.getByRole('table', { name });
  const cells = (name: string, row: string) =>
    table(name)
      .locator('tbody tr', { has: page.getByRole('rowheader', { name: row, exact: true }) })
      .locator('td')
      .allTextContents();

  it("the labeler's benchmark is scored and the Manager sees it beside agreement, rejections and codes", async () => {
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    await startStage(page, 'Labelling', 'Harbour quality');
    await page.getByRole('heading', { name: 'Objects (0)' }).waitFor();
    await page.keyboard.press('c');
    await dragFrom(page, [200, 150], [400, 250]);
    await page.getByRole('button', { name: 'Car 1', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    const owner = apiAs(server);
    const submissions = async () =>
      ((await owner<Json>('GET', `/v2/project/${pid}/benchmarkSubmissions`)).submissions as Json[]).length;
    await expect.poll(submissions).toBe(1);
    // A Labeler has no Quality section.
    await page.goto(`/projects/${pid}/work`);
    await page.getByRole('navigation').first().waitFor();
    expect(await page.getByRole('link', { name: 'Quality', exact: true }).count()).toBe(0);
    // Leave the labeler's page before the cookies go, so none of its requests still in flight is
    // answered 401 once they are gone.
    await page.goto('about:blank');
    await context.clearCookies();

    await signInAsOwner(page, server, `/projects/${pid}/overview`);
    await page.getByRole('link', { name: 'Quality', exact: true }).click();
    await page.getByRole('heading', { name: 'Quality', level: 1 }).waitFor();
    await page.setViewportSize({ width: 1440, height: 1000 });
    // The box drawn over the reference's scores close to 100.
    const [count, score] = await cells('Benchmark scores per labeler', LABELER);
    expect(count).toBe('1');
    expect(Number(score)).toBeGreaterThan(95);
    // Car: IoU 1 and 0.5; weather: pairs (Sunny, Sunny) and (Sunny, Rainy), kappa 0.
    expect(await cells('Consensus agreement per class', 'Car')).toEqual(['Mean IoU', '0.75', '–', '2 rounds']);
    expect(await cells('Consensus agreement per class', 'Weather')).toEqual([
      "Cohen's kappa",
      '0.00',
      '50 %',
      '2 pairs',
    ]);
    expect(await cells('Reviews per reviewer', 'Everyone')).toEqual(['1', '1', '50 %']);
    await page.getByRole('img', { name: 'Issues per error code: LOOSE 1, MISSED 1' }).waitFor();
    await page.getByRole('img', { name: /^Average benchmark score per day: lena@example.com 9\d|100/ }).waitFor();
    await screenshot(page, 'console-quality');

    // Night holds task one alone: full agreement, its acceptance and its issue; no benchmark.
    await page.getByLabel('Batch', { exact: true }).selectOption({ label: 'Night' });
    await expect
      .poll(() => cells('Consensus agreement per class', 'Car'))
      .toEqual(['Mean IoU', '1.00', '–', '1 round']);
    expect(await cells('Consensus agreement per class', 'Weather')).toEqual([
      "Cohen's kappa",
      '1.00',
      '100 %',
      '1 pair',
    ]);
    expect(await cells('Reviews per reviewer', 'Everyone')).toEqual(['1', '0', '0 %']);
    await page.getByText('No benchmark submissions in this time and batch.').waitFor();
    await page.getByRole('img', { name: 'Issues per error code: LOOSE 1, MISSED 0' }).waitFor();
    await screenshot(page, 'console-quality-batch');
    expect(errors).toEqual([]);
  });

  it('turning benchmarking off in Settings asks first, saying what will be deleted', async () => {
    const errors = pageErrors(page);
    const owner = apiAs(server);
    const project = async () => (await owner<Json>('GET', `/v2/project/${pid}`)).project as Json;
    const submissions = async () =>
      ((await owner<Json>('GET', `/v2/project/${pid}/benchmarkSubmissions`)).submissions as Json[]).length;
    await page.goto(`/projects/${pid}/settings`);
    const benchmarks = page.getByRole('region', { name: 'Benchmarks' });
    await benchmarks.getByText('0 pauses benchmarking').waitFor();
    expect(await benchmarks.getByLabel('Benchmark likelihood (%)').inputValue()).toBe('100');
    const enabled = benchmarks.getByLabel('Hand out benchmark tasks');
    expect(await enabled.isChecked()).toBe(true);
    await enabled.uncheck();
    await benchmarks.getByRole('button', { name: 'Save benchmark settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Turn benchmarking off?' });
    await dialog.getByText('This deletes 1 benchmark submission of 1 labeler, with their scores').waitFor();
    await screenshot(page, 'console-settings-benchmarks-off');
    // Keeping it changes nothing.
    await dialog.getByRole('button', { name: 'Keep benchmarking' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await project()).benchmarkEnabled).toBe(true);
    expect(await submissions()).toBe(1);
    // Confirming turns it off and deletes what was measured.
    await benchmarks.getByRole('button', { name: 'Save benchmark settings' }).click();
    await dialog.getByRole('button', { name: 'Delete the measurements and turn off' }).click();
    await benchmarks.getByText('Benchmark settings saved.').waitFor();
    expect((await project()).benchmarkEnabled).toBe(false);
    expect(await submissions()).toBe(0);
    // Turned on again with no likelihood, it starts at 10 %; a likelihood over 100 % is refused.
    await owner('POST', `/v2/project/${pid}`, { benchmarkRatio: 0 });
    await page.reload();
    await enabled.check();
    expect(await benchmarks.getByLabel('Benchmark likelihood (%)').inputValue()).toBe('10');
    await benchmarks.getByLabel('Benchmark likelihood (%)').fill('150');
    await benchmarks.getByRole('button', { name: 'Save benchmark settings' }).click();
    const likelihood = benchmarks.getByLabel('Benchmark likelihood (%)');
    await expect.poll(() => likelihood.getAttribute('aria-invalid')).toBe('true');
    expect((await project()).benchmarkEnabled).toBe(false);
    // The refused save is the one failed request the page made.
    expect(errors).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
  });

  it('marks and unmarks benchmarks from the Tasks page, with the reference chosen', async () => {
    const errors = pageErrors(page);
    const owner = apiAs(server);
    const { tasks } = await owner<Json>('GET', `/v2/project/${pid}/tasks?limit=100&fields=_id,externalId,type`);
    const bench = (tasks as Json[]).find((t) => t.externalId === 'bench' && t.type === 'benchmark')?._id as string;
    const typeOf = async () => ((await owner<Json>('GET', `/v2/task/${bench}`)).task as Json).type;
    await page.goto(`/projects/${pid}/tasks`);
    const row = page.locator('tbody tr', { has: page.getByRole('link', { name: 'bench', exact: true }) });
    await row.getByText('Benchmark', { exact: true }).waitFor();
    await screenshot(page, 'console-tasks-benchmark');
    await row.getByRole('checkbox', { name: 'Select bench' }).check();
    await page.getByRole('button', { name: 'Unmark benchmarks' }).click();
    await page.getByRole('status').getByText('No longer benchmarks: 1 task.').waitFor();
    await row.getByText('Benchmark', { exact: true }).waitFor({ state: 'detached' });
    expect(await typeOf()).toBe('default');
    await row.getByRole('checkbox', { name: 'Select bench' }).check();
    await page.getByLabel('Benchmark reference').selectOption({ label: "The task's current answer" });
    await page.getByRole('button', { name: 'Mark as benchmarks' }).click();
    await page.getByRole('status').getByText('Marked as benchmarks: 1 task.').waitFor();
    await row.getByText('Benchmark', { exact: true }).waitFor();
    expect(await typeOf()).toBe('benchmark');
    const { benchmark } = await owner<Json>('GET', `/v2/project/${pid}/benchmarks/${bench}`);
    expect(benchmark).toMatchObject({ taskId: bench, source: 'answer' });
    expect(errors).toEqual([]);
  });
});
