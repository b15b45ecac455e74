import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets } from './helpers/editor-assets.js';
import { signInWithKey, startStage } from './helpers/editor-page.js';
import { cuboidField, topView } from './helpers/pointcloud-view.js';

/*
 * The 3D editor on a synthetic scene the test makes: a ground plane 1.7 m under the LiDAR and two
 * boxes of points (a car-sized one turned 20 degrees, another turned -35), three frames in three
 * PCD forms, a camera looking forward with a known calibration whose image shows the first box
 * where its calibration puts it. A click on the first box in the top view places a cuboid fitted
 * to it (read back through the API within 10 cm and 3 degrees), its edges are drawn on the box in
 * the camera's image, a second cuboid on it is refused in words, a move on frame 3 makes a track
 * of two keyframes whose frame 2 lies half way; broken frames and a calibration that does not
 * invert are said in words.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Box = { x: number; y: number; length: number; width: number; height: number; yaw: number };

const GROUND = -1.7;
const BOX_A: Box = { x: 12, y: 3, length: 4.2, width: 1.8, height: 1.5, yaw: (20 * Math.PI) / 180 };
const BOX_B: Box = { x: 20, y: -5, length: 4.6, width: 2, height: 1.7, yaw: (-35 * Math.PI) / 180 };
const K = { fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480 };
/** LiDAR to camera: camera x = -y, camera y = -z (+0.3 m: the camera sits lower), camera z = x. */
const EXTRINSICS = [0, -1, 0, 0, 0, 0, -1, -0.3, 1, 0, 0, 0, 0, 0, 0, 1];

/** The points of a box's sides and top, 8 cm apart, standing on the ground. */
function boxPoints(b: Box, out: number[]) {
  const cos = Math.cos(b.yaw);
  const sin = Math.sin(b.yaw);
  const put = (u: number, v: number, z: number) => out.push(b.x + u * cos - v * sin, b.y + u * sin + v * cos, z, 40);
  const step = 0.08;
  for (let z = GROUND + 0.02; z <= GROUND + b.height + 1e-9; z += step) {
    for (let u = -b.length / 2; u <= b.length / 2 + 1e-9; u += step) {
      put(u, -b.width / 2, z);
      put(u, b.width / 2, z);
    }
    for (let v = -b.width / 2; v <= b.width / 2 + 1e-9; v += step) {
      put(-b.length / 2, v, z);
      put(b.length / 2, v, z);
    }
  }
  for (let u = -b.length / 2; u <= b.length / 2 + 1e-9; u += step) {
    for (let v = -b.width / 2; v <= b.width / 2 + 1e-9; v += step) put(u, v, GROUND + b.height);
  }
}

/** A frame: the ground (20 cm apart) and the two boxes, box A `shift` metres further forward. */
function scene(shift: number): number[] {
  const out: number[] = [];
  for (let x = 0; x <= 40; x += 0.2) for (let y = -15; y <= 15; y += 0.2) out.push(x, y, GROUND, 10);
  boxPoints({ ...BOX_A, x: BOX_A.x + shift }, out);
  boxPoints(BOX_B, out);
  return out;
}

const HEADER = (n: number, data: string) =>
  `# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\nFIELDS x y z intensity\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 1\nWIDTH ${n}\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS ${n}\nDATA ${data}\n`;

function binaryPcd(values: number[]): Buffer {
  return Buffer.concat([
    Buffer.from(HEADER(values.length / 4, 'binary')),
    Buffer.from(new Float32Array(values).buffer),
  ]);
}

function asciiPcd(values: number[]): Buffer {
  const rows: string[] = [];
  for (let i = 0; i < values.length; i += 4)
    rows.push(
      values
        .slice(i, i + 4)
        .map((v) => v.toFixed(4))
        .join(' '),
    );
  return Buffer.from(HEADER(values.length / 4, 'ascii') + rows.join('\n') + '\n');
}

function kittiBin(values: number[]): Buffer {
  return Buffer.from(new Float32Array(values).buffer);
}

/** A LiDAR point on the camera's image. */
function pixel(p: [number, number, number]): [number, number] {
  const m = EXTRINSICS;
  const q = [0, 1, 2].map((r) => m[r * 4]! * p[0] + m[r * 4 + 1]! * p[1] + m[r * 4 + 2]! * p[2] + m[r * 4 + 3]!);
  return [(K.fx * q[0]!) / q[2]! + K.cx, (K.fy * q[1]!) / q[2]! + K.cy];
}

/** The image box a cuboid's corners span. */
function projectedBounds(b: Box, shift = 0): [number, number, number, number] {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const u of [-1, 1]) {
    for (const v of [-1, 1]) {
      for (const z of [GROUND, GROUND + b.height]) {
        const x = b.x + shift + (u * b.length * Math.cos(b.yaw)) / 2 - (v * b.width * Math.sin(b.yaw)) / 2;
        const y = b.y + (u * b.length * Math.sin(b.yaw)) / 2 + (v * b.width * Math.cos(b.yaw)) / 2;
        const [px, py] = pixel([x, y, z]);
        xs.push(px);
        ys.push(py);
      }
    }
  }
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** The camera's image: grey, with box A's projected area dark blue. */
function cameraPng(shift: number): Buffer {
  const png = new PNG({ width: K.width, height: K.height });
  const [x1, y1, x2, y2] = projectedBounds(BOX_A, shift);
  for (let y = 0; y < K.height; y++) {
    for (let x = 0; x < K.width; x++) {
      const inside = x >= x1 && x <= x2 && y >= y1 && y <= y2;
      const i = (y * K.width + x) * 4;
      png.data[i] = inside ? 20 : 120;
      png.data[i + 1] = inside ? 30 : 120;
      png.data[i + 2] = inside ? 90 : 120;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

const angleOff = (a: number, b: number) => {
  // A box has no front: 180 degrees apart is the same box.
  const d = Math.abs((((a - b) % Math.PI) + Math.PI) % Math.PI);
  return Math.min(d, Math.PI - d);
};

describe('the point cloud editor', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let context: BrowserContext;
  let labelerKey = '';
  const tasks: Record<string, string> = {};

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };

  beforeAll(async () => {
    const files: Record<string, { type: string; body: Buffer | string }> = {
      '/lidar/000.pcd': { type: 'application/octet-stream', body: binaryPcd(scene(0)) },
      '/lidar/001.pcd': { type: 'application/octet-stream', body: asciiPcd(scene(1)) },
      '/lidar/002.bin': { type: 'application/octet-stream', body: kittiBin(scene(2)) },
      '/bad/header.pcd': {
        type: 'application/octet-stream',
        body: 'VERSION 0.7\nFIELDS x y\nSIZE 4 4 4\nDATA ascii\n',
      },
      '/bad/empty.pcd': { type: 'application/octet-stream', body: HEADER(0, 'ascii') },
      '/bad/huge.pcd': { type: 'application/octet-stream', body: HEADER(50_000_000, 'binary') },
    };
    for (const f of [0, 1, 2]) files[`/front/00${f}.png`] = { type: 'image/png', body: cameraPng(f) };
    assets = await serveAssets(files);
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('labeler@example.com');
    const project = async (name: string, pctConfig: Json) => {
      const id = ((await api('POST', '/v2/project', { name, type: 'pct', pctConfig })).project as Json)._id as string;
      await api('POST', `/v2/project/${id}`, {
        categorySchema: {
          tools: [
            {
              schemaId: 'car',
              title: 'Car',
              tool: 'pct',
              color: '#ff00ff',
              shortcutKey: 'c',
              markingTools: ['cuboid', 'polyline', 'rectangle'],
              hasInstance: true,
            },
          ],
          classifications: [],
        },
        stages: [
          { id: 'Start', type: 'Start', next: ['Label'] },
          { id: 'Label', name: 'Label', type: 'Label', next: ['Complete'] },
          { id: 'Complete', type: 'Complete', next: [] },
        ],
      });
      await api('POST', `/v2/project/${id}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
      return id;
    };
    const street = await project('Lidar street', { allowOverlapping: false });
    const camera = (extrinsics: number[]) => ({
      name: 'front',
      images: [0, 1, 2].map((f) => `${assets.url}/front/00${f}.png`),
      intrinsics: K,
      extrinsics,
    });
    const frames = ['000.pcd', '001.pcd', '002.bin'].map((f) => `${assets.url}/lidar/${f}`);
    const res = await api('POST', `/v2/project/${street}/cloud`, {
      assets: [
        {
          data: frames[0],
          dataset: frames,
          externalId: 'street',
          metadata: {
            frameTotal: 3,
            pct: { sensors: [{ name: 'lidar', kind: 'lidar' }], cameras: [camera(EXTRINSICS)] },
          },
        },
      ],
    });
    tasks.street = (res.assets as { taskId: string }[])[0]!.taskId;
    const broken = await project('Lidar broken', { allowOverlapping: true });
    const bad = ['header', 'empty', 'huge'].map((f) => `${assets.url}/bad/${f}.pcd`);
    const singular = [1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    const res2 = await api('POST', `/v2/project/${broken}/cloud`, {
      assets: [
        {
          data: bad[0],
          dataset: bad,
          externalId: 'broken',
          metadata: { frameTotal: 3, pct: { cameras: [camera(singular)] } },
        },
      ],
    });
    tasks.broken = (res2.assets as { taskId: string }[])[0]!.taskId;
    // A saved answer on the broken task: it must survive the frames that cannot be shown.
    await api('POST', `/v2/annotate/${tasks.broken}`, {
      answer: {
        tools: [
          {
            objectId: 'kept1',
            schemaId: 'car',
            tool: 'pct',
            markingTool: 'cuboid',
            page: 0,
            cuboid: { center: { x: 5, y: 1, z: -1 }, dimensions: { length: 4, width: 2, height: 1.5 }, yaw: 0.1 },
          },
        ],
        classifications: [],
      },
    });
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  /** The image pixels (camera's own) where the editor drew magenta, as a bounding box. */
  const magentaBounds = async (page: Page) => {
    const camera = page.locator('canvas[data-camera="front"]');
    await expect.poll(() => camera.getAttribute('data-ready')).toBe('true');
    const scale = Number(await camera.getAttribute('data-scale'));
    const found = await page.evaluate<{ x1: number; y1: number; x2: number; y2: number; n: number }>(`(() => {
      const cv = document.querySelector('canvas[data-camera="front"]');
      const data = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      let [x1, y1, x2, y2, n] = [Infinity, Infinity, -Infinity, -Infinity, 0];
      for (let y = 0; y < cv.height; y++) {
        for (let x = 0; x < cv.width; x++) {
          const i = (y * cv.width + x) * 4;
          if (data[i] > 200 && data[i + 1] < 80 && data[i + 2] > 200) {
            x1 = Math.min(x1, x);
            y1 = Math.min(y1, y);
            x2 = Math.max(x2, x);
            y2 = Math.max(y2, y);
            n++;
          }
        }
      }
      return { x1, y1, x2, y2, n };
    })()`);
    return { ...found, x1: found.x1 / scale, y1: found.y1 / scale, x2: found.x2 / scale, y2: found.y2 / scale };
  };

  it('fits a cuboid to a box of points, projects it on the camera, refuses an overlap and tracks it', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    expect(await startStage(page, 'Label', 'Lidar street')).toBe(tasks.street);
    let at = await topView(page, 0);
    // The frame was read off the page's thread, by the console's frame reader (a Web Worker).
    expect(page.workers().map((w) => w.url())).toEqual(expect.arrayContaining([expect.stringMatching(/frame-worker/)]));
    await page.getByRole('button', { name: 'Car cuboid tool' }).click();
    // A click on the ground beside the box's middle: the fit finds the box around it.
    await page.mouse.click(...at(BOX_A.x + 0.3, BOX_A.y - 0.2));
    await screenshot(page, 'editor-pointcloud-placed');
    await expect.poll(() => cuboidField(page, 'length').inputValue(), { timeout: 5000 }).not.toBe('');

    // The cuboid's edges on the camera's image fall on the box's image.
    const [bx1, by1, bx2, by2] = projectedBounds(BOX_A);
    await expect.poll(async () => (await magentaBounds(page)).n).toBeGreaterThan(50);
    const drawn = await magentaBounds(page);
    for (const [got, want] of [
      [drawn.x1, bx1],
      [drawn.y1, by1],
      [drawn.x2, bx2],
      [drawn.y2, by2],
    ] as [number, number][]) {
      expect(Math.abs(got - want), JSON.stringify({ drawn, want: [bx1, by1, bx2, by2] })).toBeLessThan(8);
    }
    await screenshot(page, 'editor-pointcloud-cuboid');

    // A second cuboid on the same box: refused in words, nothing added.
    await page.mouse.click(...at(BOX_A.x - 0.5, BOX_A.y + 0.2));
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('overlap');
    await screenshot(page, 'editor-pointcloud-overlap');

    // Frame 3 (the box has moved 2 m forward): the cuboid moved onto it makes a second keyframe.
    await page.getByRole('button', { name: 'Select', exact: true }).click();
    await page.getByLabel('Frame', { exact: true }).fill('3');
    await page.getByLabel('Frame', { exact: true }).press('Enter');
    at = await topView(page, 2);
    const from = at(BOX_A.x, BOX_A.y);
    const to = at(BOX_A.x + 2, BOX_A.y);
    await page.mouse.move(...from);
    await page.mouse.down();
    await page.mouse.move((from[0] + to[0]) / 2, (from[1] + to[1]) / 2, { steps: 4 });
    await page.mouse.move(...to, { steps: 4 });
    await page.mouse.up();
    await expect.poll(() => page.locator('.video-timeline path').count()).toBe(2);
    const x3 = Number(await cuboidField(page, 'x').inputValue());
    // Frame 2 lies half way between the two keyframes.
    await page.getByLabel('Frame', { exact: true }).fill('2');
    await page.getByLabel('Frame', { exact: true }).press('Enter');
    await topView(page, 1);
    await expect.poll(async () => Number(await cuboidField(page, 'x').inputValue())).not.toBe(x3);
    const x2 = Number(await cuboidField(page, 'x').inputValue());
    expect(Math.abs(x2 - (x3 - 1))).toBeLessThan(0.06);
    await screenshot(page, 'editor-pointcloud-track');

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const task = (await api('GET', `/v2/task/${tasks.street}`)).task as Json;
    const tools = [...(task.answer.tools as Json[])].sort((a, b) => a.page - b.page);
    expect(tools.map((t) => t.page)).toEqual([0, 2]);
    expect(new Set(tools.map((t) => t.objectId)).size).toBe(1);
    expect(tools[0]).toMatchObject({ tool: 'pct', markingTool: 'cuboid', schemaId: 'car', instanceId: 1 });
    const c = tools[0]!.cuboid as Json;
    expect(Math.hypot(c.center.x - BOX_A.x, c.center.y - BOX_A.y), JSON.stringify(c)).toBeLessThan(0.1);
    expect(Math.abs(c.center.z - (GROUND + BOX_A.height / 2))).toBeLessThan(0.1);
    expect(Math.abs(c.dimensions.length - BOX_A.length)).toBeLessThan(0.1);
    expect(Math.abs(c.dimensions.width - BOX_A.width)).toBeLessThan(0.1);
    expect(Math.abs(c.dimensions.height - BOX_A.height)).toBeLessThan(0.1);
    expect(angleOff(c.yaw, BOX_A.yaw)).toBeLessThan((3 * Math.PI) / 180);
    const moved = tools[1]!.cuboid as Json;
    expect(Math.abs(moved.center.x - (c.center.x + 2))).toBeLessThan(0.1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says in words what is wrong with a frame or a calibration, and keeps the saved answer', async () => {
    const page = await context.newPage();
    expect(await startStage(page, 'Label', 'Lidar broken')).toBe(tasks.broken);
    const alerts = page.getByRole('alert');
    const said = () => alerts.allTextContents().then((t) => t.join(' | '));
    await expect.poll(said).toContain('the PCD header has no TYPE line');
    await expect.poll(said).toContain('The answer saved so far is kept');
    await expect.poll(said).toContain('does not invert');
    await screenshot(page, 'editor-pointcloud-bad-header');
    await page.getByRole('button', { name: 'Next frame' }).click();
    await expect.poll(said).toContain('the frame has no points');
    await page.getByRole('button', { name: 'Next frame' }).click();
    await expect.poll(said).toContain('50,000,000 points');
    // The cuboid saved before is still there to submit.
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const task = (await api('GET', `/v2/task/${tasks.broken}`)).task as Json;
    expect((task.answer.tools as Json[]).map((t) => t.objectId)).toEqual(['kept1']);
    await page.close();
  });
});
