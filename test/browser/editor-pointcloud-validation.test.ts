import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PctValidator, startPctValidator } from '../helpers/pct-validator.js';
import { sceneBoxes, scenePoints, writePcd } from '../helpers/pointcloud-scene.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { signInWithKey, startStage } from './helpers/editor-page.js';
import { editorProject } from './helpers/editor-task.js';
import { apiAs } from './helpers/project-data.js';
import { cuboidField, topView, toFrame } from './helpers/pointcloud-view.js';
import { rangeServer, type RangeServer } from './helpers/range-server.js';

/*
 * External validation in the 3D editor: the project's validator is a real HTTP server on
 * 127.0.0.1 (test/helpers/pct-validator.ts) that checks the Secret header and finds every cuboid
 * taller than 3 m wrong, on each frame it is shown. A labeler fits a cuboid on frame 1 and makes
 * it 4 m tall from frame 2. While the validator fails, the submit is held and the editor says the
 * answer could not be checked; once it judges, its findings are listed by frame (counted from 1)
 * and object name, and a click on one shows that frame with the object selected. Made 1.5 m tall
 * again there, the answer passes and the submit goes through.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const SECRET = 'validator-s3cret';
const BOX = sceneBoxes(0)[0]!;

describe('external validation in the 3D editor', () => {
  let server: ConsoleServer;
  let media: RangeServer;
  let validator: PctValidator;
  let browser: Browser;
  let context: BrowserContext;
  let labelerKey = '';
  let taskId = '';

  beforeAll(async () => {
    media = await rangeServer({
      '/lidar/000.pcd': writePcd(scenePoints(0), 'binary'),
      '/lidar/001.pcd': writePcd(scenePoints(1), 'binary'),
      '/lidar/002.pcd': writePcd(scenePoints(2), 'binary'),
    });
    validator = await startPctValidator(SECRET);
    server = await startConsoleServer(engine, { env: { ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    labelerKey = await server.addUser('labeler@example.com');
    const frames = ['000', '001', '002'].map((f) => `${media.url}/lidar/${f}.pcd`);
    const made = await editorProject(server, {
      name: 'Lidar checked',
      create: {
        type: 'pct',
        pctConfig: { externalValidation: { enabled: true, apiUrl: validator.url, secret: SECRET } },
      },
      categorySchema: {
        tools: [{ schemaId: 'car', title: 'Car', tool: 'pct', color: '#ff00ff', shortcutKey: 'c' }],
        classifications: [],
      },
      assets: [{ data: frames[0]!, dataset: frames, externalId: 'checked', editorType: 'pct' }],
    });
    taskId = made.tasks.checked!;
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await media?.close();
    await validator?.close();
  });

  const stage = async () => (await apiAs(server)<{ task: Json }>('GET', `/v2/task/${taskId}`)).task.stageName;
  const heights = (call: { body: Json }) =>
    (call.body.answer.tools as Json[]).map((e) => [e.page, e.cuboid.dimensions.height]);

  it('holds the submit while the validator fails or refuses, lists its findings, and lets a fixed answer through', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    expect(await startStage(page, 'Label', 'Lidar checked')).toBe(taskId);

    // A cuboid fitted to box A on frame 1, made 4 m tall from frame 2 on.
    const at = await topView(page, 0);
    await page.getByRole('button', { name: 'Car cuboid tool' }).click();
    await page.mouse.click(...at(BOX.center.x, BOX.center.y));
    await expect.poll(() => cuboidField(page, 'height').inputValue(), { timeout: 5000 }).not.toBe('');
    await page.getByRole('button', { name: 'Select', exact: true }).click();
    await toFrame(page, 2);
    await topView(page, 1);
    await cuboidField(page, 'height').fill('4');
    await cuboidField(page, 'height').press('Enter');
    await expect.poll(() => page.locator('.video-timeline path').count()).toBe(2);

    // The validator fails: the submit is held, in words, and the task stays in Label.
    validator.mode = 'error';
    const submit = page.getByRole('button', { name: 'Submit', exact: true });
    await submit.click();
    const notice = page.locator('.pointcloud-validation');
    await expect
      .poll(() => notice.textContent(), { timeout: 30_000 })
      .toContain('The external validator could not check the answer: the external validator answered HTTP 500.');
    expect(await notice.textContent()).toContain('submit again to retry');
    await expect.poll(() => page.locator('.work-failure').textContent()).toContain('could not check the answer');
    await screenshot(page, 'editor-pointcloud-validation-unreachable');
    expect(validator.calls).toHaveLength(1);
    expect(await stage()).toBe('Label');

    // It judges: frames 2 and 3 hold the 4 m cuboid, and the findings say so, by name.
    validator.mode = 'judge';
    await toFrame(page, 1);
    await topView(page, 0);
    await submit.click();
    const findings = page.getByRole('list', { name: 'What the external validator found' });
    await expect
      .poll(() => findings.getByRole('listitem').allTextContents(), { timeout: 30_000 })
      .toEqual(['Frame 2, Car 1: too tall: 4 m', 'Frame 3, Car 1: too tall: 4 m']);
    expect(await notice.textContent()).toContain('It says: checked 3 frames.');
    expect(validator.calls.at(-1)!.headers.secret).toBe(SECRET);
    expect(heights(validator.calls.at(-1)!)).toEqual([
      [0, expect.closeTo(BOX.dimensions.height, 1)],
      [1, 4],
      [2, 4],
    ]);
    await expect.poll(() => page.locator('.work-failure').textContent()).toContain('found 2 problems');
    await screenshot(page, 'editor-pointcloud-validation-refused');
    expect(await stage()).toBe('Label');

    // A click on the first finding shows frame 2 with the cuboid selected; fixed there, it passes.
    await page.getByRole('button', { name: 'Frame 2, Car 1: too tall: 4 m' }).click();
    await topView(page, 1);
    await expect.poll(() => cuboidField(page, 'height').inputValue()).toBe('4.00');
    await cuboidField(page, 'height').fill('1.5');
    await cuboidField(page, 'height').press('Enter');
    await page.getByText(/^Draft saved at/).waitFor();
    await screenshot(page, 'editor-pointcloud-validation-fixed');
    await submit.click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor({ timeout: 30_000 });
    expect(heights(validator.calls.at(-1)!).every(([, h]) => h <= 3)).toBe(true);
    expect(validator.calls).toHaveLength(3);
    const task = (await apiAs(server)<{ task: Json }>('GET', `/v2/task/${taskId}`)).task;
    expect(task.stageName).not.toBe('Label');
    expect((task.answer.tools as Json[]).map((t) => [t.page, t.cuboid.dimensions.height])).toEqual([
      [0, expect.closeTo(BOX.dimensions.height, 1)],
      [1, 1.5],
    ]);
    // The one failed request is the validator's 502, said in the notice above.
    expect(errors).toEqual(['Failed to load resource: the server responded with a status of 502 (Bad Gateway)']);
    await page.close();
  });
});
