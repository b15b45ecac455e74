import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePcd, type ScenePoint } from '../helpers/pointcloud-scene.js';
import { ENGINES } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { signInWithKey, startStage } from './helpers/editor-page.js';
import { apiAs } from './helpers/project-data.js';
import { topView } from './helpers/pointcloud-view.js';
import { rangeServer, type RangeServer } from './helpers/range-server.js';

/*
 * Segmentation mode of the 3D editor on a scene the test makes (two frames: a ground plane 1.7 m
 * under the lidar and two boxes of points standing on it). A lasso drawn with the mouse round one
 * box in the top view, above the ground's height, labels exactly that box's points: the stored
 * run-length code is expanded here and compared point by point. With a 90% coverage rule the
 * editor refuses the submit in words naming the frames short of it, and so does the server
 * (400 naming answer.pointLabels); once both frames are labelled the submit goes through.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Box = { x: number; y: number; length: number; width: number; height: number; yaw: number };

const GROUND = -1.7;
const BOX_A: Box = { x: 12, y: 3, length: 4.2, width: 1.8, height: 1.5, yaw: (20 * Math.PI) / 180 };
const BOX_B: Box = { x: 20, y: -5, length: 4.6, width: 2, height: 1.7, yaw: (-35 * Math.PI) / 180 };

/** The points of a box's sides and top, 10 cm apart, from 2 cm above the ground. */
function boxPoints(b: Box): ScenePoint[] {
  const out: ScenePoint[] = [];
  const [cos, sin] = [Math.cos(b.yaw), Math.sin(b.yaw)];
  const put = (u: number, v: number, z: number) =>
    out.push({ x: b.x + u * cos - v * sin, y: b.y + u * sin + v * cos, z, intensity: 40 });
  for (let z = GROUND + 0.02; z <= GROUND + b.height + 1e-9; z += 0.1) {
    for (let u = -b.length / 2; u <= b.length / 2 + 1e-9; u += 0.1) {
      put(u, -b.width / 2, z);
      put(u, b.width / 2, z);
    }
  }
  for (let u = -b.length / 2; u <= b.length / 2 + 1e-9; u += 0.1) {
    for (let v = -b.width / 2; v <= b.width / 2 + 1e-9; v += 0.1) put(u, v, GROUND + b.height);
  }
  return out;
}

/** A frame in file order: the ground (25 cm apart), box A, box B. Answers the range of box A's points. */
function frame(): { points: ScenePoint[]; boxA: [number, number] } {
  const points: ScenePoint[] = [];
  for (let x = 0; x <= 30; x += 0.25)
    for (let y = -12; y <= 12; y += 0.25) points.push({ x, y, z: GROUND, intensity: 5 });
  const start = points.length;
  points.push(...boxPoints(BOX_A));
  const end = points.length;
  points.push(...boxPoints(BOX_B));
  return { points, boxA: [start, end] };
}

/** A frame's stored labels, expanded to one schemaId (or null) per point. */
function expand(item: Json): (string | null)[] {
  const out: (string | null)[] = [];
  for (let r = 0; r < item.runs.length; r += 2) {
    for (let k = 0; k < item.runs[r]; k++) out.push(item.runs[r + 1] === 0 ? null : item.classes[item.runs[r + 1] - 1]);
  }
  return out;
}

describe('point segmentation in the 3D editor', () => {
  let server: ConsoleServer;
  let media: RangeServer;
  let browser: Browser;
  let context: BrowserContext;
  let labelerKey = '';
  let taskId = '';
  const scene = frame();
  const count = scene.points.length;

  beforeAll(async () => {
    media = await rangeServer({
      '/lidar/000.pcd': writePcd(scene.points, 'binary'),
      '/lidar/001.pcd': writePcd(scene.points, 'ascii'),
    });
    server = await startConsoleServer(engine, {
      worker: true,
      env: { ANNOTARY_READ_ASSET_HEADERS: 'true', ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true' },
    });
    const api = apiAs(server);
    labelerKey = await server.addUser('labeler@example.com');
    const pctConfig = { segmentationMode: true, segmentationValidation: { enabled: true, completeCoverage: 90 } };
    const { project } = await api<{ project: Json }>('POST', '/v2/project', {
      name: 'Lidar segments',
      type: 'pct',
      pctConfig,
    });
    await api('POST', `/v2/project/${project._id}`, {
      categorySchema: {
        tools: [
          { schemaId: 'car', title: 'Car', tool: 'pct', color: '#ff00ff', shortcutKey: 'c' },
          { schemaId: 'road', title: 'Road', tool: 'pct', color: '#00c0ff', shortcutKey: 'r' },
        ],
        classifications: [],
      },
      stages: [
        { id: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Complete'] },
        { id: 'Complete', type: 'Complete', next: [] },
      ],
    });
    await api('POST', `/v2/project/${project._id}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    const frames = ['000.pcd', '001.pcd'].map((f) => `${media.url}/lidar/${f}`);
    const res = await api<{ assets: { taskId: string }[] }>('POST', `/v2/project/${project._id}/cloud`, {
      assets: [{ data: frames[0], dataset: frames, externalId: 'lot', editorType: 'pct' }],
    });
    taskId = res.assets[0]!.taskId;
    // The server holds the frames' point counts once its header job has read them.
    await waitFor(
      async () => {
        const { assets } = await api<{ assets: Json[] }>('GET', `/v2/project/${project._id}/assets?limit=10`);
        return assets[0]?.metadata?.pointsPerFrame?.length === 2;
      },
      'the frames to have their point counts',
      30_000,
      250,
    );
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await media?.close();
  });

  /** A lasso drawn with the mouse through ground points (metres), closed back to the first. */
  const lasso = async (page: Page, at: (x: number, y: number) => [number, number], corners: [number, number][]) => {
    const first = at(...corners[0]!);
    await page.mouse.move(...first);
    await page.mouse.down();
    for (const c of [...corners.slice(1), corners[0]!]) await page.mouse.move(...at(...c), { steps: 6 });
    await page.mouse.up();
  };

  const labelled = (page: Page) =>
    page.getByRole('status', { name: 'Labelled points' }).getAttribute('data-labelled').then(Number);

  it('labels the points of one box with a lasso, stores them per point, and holds the coverage rule', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    expect(await startStage(page, 'Label', 'Lidar segments')).toBe(taskId);
    let at = await topView(page, 0);
    await page.getByRole('button', { name: 'Label points as Car' }).click();
    await page.getByLabel('Lowest height (m)').fill(String(GROUND + 0.01));
    // A lasso round box A (its corners lie within x 9.7..14.3, y 1.4..4.6), box B far away.
    await lasso(page, at, [
      [9, 0.5],
      [15, 0.5],
      [15, 5.5],
      [9, 5.5],
    ]);
    const [start, end] = scene.boxA;
    await expect.poll(() => labelled(page)).toBe(end - start);
    await screenshot(page, 'editor-pointcloud-segmentation-box');

    // The draft holds exactly box A's points as cars.
    let draft: Json | undefined;
    await waitFor(
      async () => {
        draft = (await apiAs(server)<{ task: Json }>('GET', `/v2/task/${taskId}`)).task.answer;
        return Array.isArray(draft?.pointLabels);
      },
      'the draft to hold the point labels',
      15_000,
      250,
    );
    expect(draft!.pointLabels).toHaveLength(1);
    const ids = expand(draft!.pointLabels[0]);
    expect(ids).toHaveLength(count);
    const want = scene.points.map((_, i) => (i >= start && i < end ? 'car' : null));
    expect(ids.findIndex((id, i) => id !== want[i])).toBe(-1);

    // Less than 90% of each frame's points labelled: the editor refuses in words...
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    const failure = page.locator('.work-failure');
    await expect
      .poll(() => failure.textContent())
      .toMatch(/at least 90% of every frame's points labelled; frame 1 has \d+\.\d% labelled/);
    const said = (await failure.textContent()) ?? '';
    expect(said).toContain('frame 2 has 0.0% labelled');
    await screenshot(page, 'editor-pointcloud-segmentation-refused');
    // ...and so does the server, naming the field.
    const direct = await server.call('POST', `/v2/annotate/${taskId}?nextStage=true`, {
      key: labelerKey,
      body: { answer: draft },
    });
    expect(direct.statusCode, direct.body).toBe(400);
    expect(direct.json().errors[0]).toMatchObject({ field: 'answer.pointLabels' });
    expect(direct.json().errors[0].message).toMatch(/frame 0 has \d+\.\d% of its points labelled; at least 90%/);

    // The rest of frame 1 as road, the cars kept; frame 2 all road.
    await page.keyboard.press('r');
    await page.getByLabel('Lowest height (m)').fill('');
    await page.getByLabel('Keep labelled points').check();
    const everything: [number, number][] = [
      [-1, -13],
      [31, -13],
      [31, 13],
      [-1, 13],
    ];
    await lasso(page, at, everything);
    await expect.poll(() => labelled(page)).toBe(count);
    await screenshot(page, 'editor-pointcloud-segmentation-road');
    await page.getByRole('button', { name: 'Next frame' }).click();
    at = await topView(page, 1);
    await expect.poll(() => labelled(page)).toBe(0);
    await lasso(page, at, everything);
    await expect.poll(() => labelled(page)).toBe(count);

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const task = (await apiAs(server)<{ task: Json }>('GET', `/v2/task/${taskId}`)).task;
    const items = [...(task.answer.pointLabels as Json[])].sort((a, b) => a.page - b.page);
    expect(items.map((i) => i.page)).toEqual([0, 1]);
    const first = expand(items[0]!);
    expect(first.findIndex((id, i) => id !== (i >= start && i < end ? 'car' : 'road'))).toBe(-1);
    expect(first).toHaveLength(count);
    expect(items[1]).toEqual({ page: 1, classes: ['road'], runs: [count, 1] });
    expect(errors).toEqual([]);
    await page.close();
  });
});
