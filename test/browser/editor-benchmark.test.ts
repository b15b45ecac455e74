import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import { dragFrom, signInWithKey, startStage } from './helpers/editor-page.js';

/*
 * A benchmark worked in the console as a labeler works any task: Start hands it out (the
 * project's ratio is 1), the editor opens it with nothing drawn (the reference stays hidden), the
 * box drawn and submitted is scored against the reference, and the benchmark task itself is
 * unchanged.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const REFERENCE = {
  tools: [{ schemaId: 'car', objectId: 'ref', 'bounding-box': { x: 200, y: 150, width: 200, height: 100 } }],
  classifications: [],
};

describe('a benchmark in the editor', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let context: BrowserContext;
  let labelerKey = '';
  let pid = '';
  let benchmark = '';

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };

  beforeAll(async () => {
    assets = await serveAssets({ '/lot.png': { type: 'image/png', body: streetPng(800, 600) } });
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('labeler@example.com');
    pid = (await api('POST', '/v2/project', { name: 'Lots' })).project._id as string;
    await api('POST', `/v2/project/${pid}`, {
      categorySchema: {
        tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#d92d20', shortcutKey: 'c' }],
        classifications: [],
      },
    });
    await api('POST', `/v2/project/${pid}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    const imported = await api('POST', `/v2/project/${pid}/cloud`, {
      assets: ['lot-1', 'lot-2'].map((name) => ({ data: `${assets.url}/lot.png?${name}`, externalId: name })),
    });
    benchmark = (imported.assets as Json[])[0]?.taskId as string;
    await api('POST', `/v2/project/${pid}/benchmarks`, { tasks: [benchmark], answer: REFERENCE });
    await api('POST', `/v2/project/${pid}`, { benchmarkEnabled: true, benchmarkRatio: 1 });
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  it('opens from Start with nothing drawn and is scored on submit', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    const opened = await startStage(page, 'Label', 'Lots');
    expect(opened).toBe(benchmark);
    await page.getByRole('heading', { name: 'Objects (0)' }).waitFor();
    await page.keyboard.press('c');
    await dragFrom(page, [200, 150], [400, 250]);
    await page.getByRole('button', { name: 'Car 1', exact: true }).waitFor();
    await screenshot(page, 'editor-benchmark');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL((u) => !u.pathname.includes(benchmark));

    const submissions = (await api('GET', `/v2/project/${pid}/benchmarkSubmissions`)).submissions as Json[];
    expect(submissions).toHaveLength(1);
    expect(submissions[0]).toMatchObject({ taskId: benchmark, labeler: 'labeler@example.com' });
    expect(submissions[0]?.score).toBeGreaterThan(95);
    const task = (await api('GET', `/v2/task/${benchmark}`)).task as Json;
    expect(task).toMatchObject({ type: 'benchmark', stage: 'Label', assignee: null });
    expect(errors).toEqual([]);
  });
});
