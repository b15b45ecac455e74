import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENE_CAMERA, scenePoints, writePcd } from '../helpers/pointcloud-scene.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets, streetPng } from './helpers/editor-assets.js';
import { signInWithKey, type Vec } from './helpers/editor-page.js';
import { editorProject, openEditorTask } from './helpers/editor-task.js';
import { apiAs } from './helpers/project-data.js';
import { cameraView, topView } from './helpers/pointcloud-view.js';

/*
 * The 3D editor's line and 2D tools, drawn with the mouse on the synthetic scene (the ground at
 * z = 0 and two boxes, a front camera of known calibration): a 3D polygon finished with Enter and a
 * 3D polyline finished with a double click in the top view on frame 1, and on frame 2 a rectangle
 * dragged, a 2D polygon finished with Enter and a 2D polyline finished with a double click on the
 * camera's image. The submitted answer holds each with its `page`, its `sensor` for the 2D ones,
 * and the points clicked (metres on the ground, pixels of the image).
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const IMAGE_WIDTH = SCENE_CAMERA.intrinsics.width;

const POLYGON_3D: Vec[] = [
  [3, -6],
  [5, -6],
  [5, -8],
];
const POLYLINE_3D: Vec[] = [
  [2, 6],
  [4, 7],
  [6, 8],
];
const RECTANGLE: [Vec, Vec] = [
  [100, 100],
  [220, 180],
];
const POLYGON_2D: Vec[] = [
  [300, 300],
  [400, 300],
  [350, 400],
];
const POLYLINE_2D: Vec[] = [
  [450, 100],
  [550, 150],
  [600, 120],
];

describe('3D lines and camera shapes in the point cloud editor', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let context: BrowserContext;
  let labelerKey = '';
  let taskId = '';

  beforeAll(async () => {
    const files: Record<string, { type: string; body: Buffer }> = {};
    for (const f of [0, 1]) {
      files[`/lidar/00000${f}.pcd`] = { type: 'application/octet-stream', body: writePcd(scenePoints(f), 'binary') };
      files[`/front/00000${f}.png`] = { type: 'image/png', body: streetPng(640, 480) };
    }
    assets = await serveAssets(files);
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('labeler@example.com');
    const frames = [0, 1].map((f) => `${assets.url}/lidar/00000${f}.pcd`);
    const camera = { ...SCENE_CAMERA, images: [0, 1].map((f) => `${assets.url}/front/00000${f}.png`) };
    const project = await editorProject(server, {
      name: 'Lidar lanes',
      create: { type: 'pct' },
      categorySchema: {
        tools: [
          {
            schemaId: 'lane',
            title: 'Lane',
            tool: 'pct',
            color: '#ff00ff',
            markingTools: ['polygon', 'polyline', 'rectangle', 'polygon2d', 'polyline2d'],
          },
        ],
        classifications: [],
      },
      assets: [
        {
          data: frames[0]!,
          dataset: frames,
          externalId: 'lanes',
          metadata: { frameTotal: 2, pct: { cameras: [camera] } },
        },
      ],
    });
    taskId = project.tasks.lanes!;
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  const tool = (page: Page, name: string) => page.getByRole('button', { name: `Lane ${name} tool` }).click();

  /** Clicks through points, the last one twice when `double` (finishing the line). */
  const clickThrough = async (page: Page, screen: Vec[], double = false) => {
    for (const [i, p] of screen.entries()) {
      if (double && i === screen.length - 1) await page.mouse.dblclick(...p);
      else await page.mouse.click(...p);
    }
  };

  it('draws 3D polygons and polylines on the ground and 2D shapes on the camera, stored per frame', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    await openEditorTask(page, server, taskId);

    const ground = await topView(page, 0);
    await tool(page, '3D polygon');
    await clickThrough(
      page,
      POLYGON_3D.map(([x, y]) => ground(x, y)),
    );
    await page.keyboard.press('Enter');
    await tool(page, '3D polyline');
    await clickThrough(
      page,
      POLYLINE_3D.map(([x, y]) => ground(x, y)),
      true,
    );
    await screenshot(page, 'editor-pointcloud-3d-lines');

    await page.getByRole('button', { name: 'Next frame' }).click();
    await topView(page, 1);
    // Each tool button is scrolled to before its click: the camera's place is read after it.
    const image = () => cameraView(page, 'front', IMAGE_WIDTH);
    await tool(page, 'rectangle');
    const [from, to] = RECTANGLE.map(await image()) as [Vec, Vec];
    await page.mouse.move(...from);
    await page.mouse.down();
    await page.mouse.move((from[0] + to[0]) / 2, (from[1] + to[1]) / 2, { steps: 4 });
    await page.mouse.move(...to, { steps: 4 });
    await page.mouse.up();
    await tool(page, '2D polygon');
    await clickThrough(page, POLYGON_2D.map(await image()));
    await page.keyboard.press('Enter');
    await tool(page, '2D polyline');
    await clickThrough(page, POLYLINE_2D.map(await image()), true);
    await screenshot(page, 'editor-pointcloud-camera-shapes');

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'No more tasks' }).waitFor();
    const { task } = await apiAs(server)<{ task: Json }>('GET', `/v2/task/${taskId}`);
    const tools = task.answer.tools as Json[];
    const byTool = new Map(tools.map((t) => [t.markingTool as string, t]));
    expect(tools.map((t) => [t.markingTool, t.page, t.sensor, t.schemaId, t.tool])).toEqual([
      ['polygon', 0, undefined, 'lane', 'pct'],
      ['polyline', 0, undefined, 'lane', 'pct'],
      ['rectangle', 1, 'front', 'lane', 'pct'],
      ['polygon2d', 1, 'front', 'lane', 'pct'],
      ['polyline2d', 1, 'front', 'lane', 'pct'],
    ]);

    // 3D points: where the clicks fell on the ground (a top-view pixel is a few centimetres), at its height.
    for (const [marking, want] of [
      ['polygon', POLYGON_3D],
      ['polyline', POLYLINE_3D],
    ] as const) {
      const got = byTool.get(marking)!.points as { x: number; y: number; z: number }[];
      expect(got, marking).toHaveLength(want.length);
      got.forEach((p, i) => {
        const [x, y] = want[i]!;
        expect(Math.hypot(p.x - x, p.y - y), `${marking} point ${i}: ${JSON.stringify(p)}`).toBeLessThan(0.1);
        expect(Math.abs(p.z), `${marking} point ${i} height`).toBeLessThan(0.05);
      });
    }
    // 2D shapes: image pixels, within a pixel and a half of the screen's rounding.
    const near = (got: number, want: number, what: string) =>
      expect(Math.abs(got - want), `${what}: ${got} for ${want}`).toBeLessThan(1.5);
    const box = byTool.get('rectangle')!.box as Json;
    near(box.x, 100, 'x');
    near(box.y, 100, 'y');
    near(box.width, 120, 'width');
    near(box.height, 80, 'height');
    for (const [marking, want] of [
      ['polygon2d', POLYGON_2D],
      ['polyline2d', POLYLINE_2D],
    ] as const) {
      const got = byTool.get(marking)!.points as [number, number][];
      expect(got, marking).toHaveLength(want.length);
      got.forEach(([x, y], i) => {
        near(x, want[i]![0], `${marking} point ${i} x`);
        near(y, want[i]![1], `${marking} point ${i} y`);
      });
    }
    expect(errors).toEqual([]);
    await page.close();
  });
});
