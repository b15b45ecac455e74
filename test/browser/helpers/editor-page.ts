import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { expect } from 'vitest';
import type { ConsoleServer } from './console-server.js';
import { apiAs } from './project-data.js';

/** An image pixel or a screen point. */
export type Vec = [number, number];

/** Signs in with an API key (the sign-in form's other way) and waits to leave /signin. */
export async function signInWithKey(page: Page, key: string): Promise<void> {
  await page.goto('/signin');
  await page.getByRole('button', { name: 'Use an API key instead' }).click();
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/signin');
}

/** The editor canvas's viewport once its image is drawn: where an image pixel is on the screen. */
export async function canvasView(page: Page): Promise<{ scale: number; screen(p: Vec): Vec }> {
  const canvas = page.getByTestId('editor-canvas');
  await expect.poll(() => canvas.getAttribute('data-ready')).toBe('true');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('no canvas');
  const scale = Number(await canvas.getAttribute('data-scale'));
  const ox = Number(await canvas.getAttribute('data-offset-x'));
  const oy = Number(await canvas.getAttribute('data-offset-y'));
  return { scale, screen: ([x, y]) => [box.x + ox + x * scale, box.y + oy + y * scale] };
}

/** Where an image pixel is on the screen. */
export async function screenOf(page: Page, p: Vec): Promise<Vec> {
  return (await canvasView(page)).screen(p);
}

/** A click on an image pixel. */
export async function clickAt(page: Page, p: Vec): Promise<void> {
  const [sx, sy] = await screenOf(page, p);
  await page.mouse.click(sx, sy);
}

/** A mouse drag between two image pixels, in a few steps as a hand moves. */
export async function dragFrom(page: Page, from: Vec, to: Vec): Promise<void> {
  const [ax, ay] = await screenOf(page, from);
  const [bx, by] = await screenOf(page, to);
  await page.mouse.move(ax, ay);
  await page.mouse.down();
  await page.mouse.move((ax + bx) / 2, (ay + by) / 2, { steps: 4 });
  await page.mouse.move(bx, by, { steps: 4 });
  await page.mouse.up();
}

/** The colour shown on the screen at an image pixel. */
export async function shownAt(page: Page, p: Vec): Promise<[number, number, number]> {
  const [sx, sy] = (await canvasView(page)).screen(p);
  const shot = PNG.sync.read(
    await page.screenshot({ clip: { x: Math.round(sx), y: Math.round(sy), width: 1, height: 1 } }),
  );
  return [shot.data[0]!, shot.data[1]!, shot.data[2]!];
}

/** A brush stroke through image pixels, pressed with `button`, a few steps between points. */
export async function strokeThrough(page: Page, points: Vec[], button: 'left' | 'right' = 'left'): Promise<void> {
  const view = await canvasView(page);
  const [first, ...rest] = points.map((p) => view.screen(p));
  await page.mouse.move(first![0], first![1]);
  await page.mouse.down({ button });
  for (const [x, y] of rest) await page.mouse.move(x, y, { steps: 6 });
  await page.mouse.up({ button });
}

/** "Start" on the work queue for a stage of a project; answers the task id that opened. */
export async function startStage(page: Page, stage: string, project: string): Promise<string> {
  await page.goto('/work');
  await page.getByRole('button', { name: `Start ${stage} in ${project}` }).click();
  await page.waitForURL(/\/work\/tasks\//);
  return /\/work\/tasks\/([^/?]+)/.exec(page.url())?.[1] ?? '';
}

/** The colour shown on the screen at an image pixel (a slice's voxel, a page's point). */
export async function colorAt(page: Page, p: Vec): Promise<[number, number, number]> {
  const [sx, sy] = await screenOf(page, p);
  const shot = PNG.sync.read(
    await page.screenshot({ clip: { x: Math.round(sx), y: Math.round(sy), width: 1, height: 1 } }),
  );
  return [shot.data[0]!, shot.data[1]!, shot.data[2]!];
}

/** The slice a volume's editor shows, 0-based. */
export const sliceShown = (page: Page) => page.getByLabel('Slice shown').getAttribute('data-slice').then(Number);

/** A one-stage labelling workflow (Start, Label, Complete) for a project's settings. */
export const LABEL_STAGES = [
  { id: 'Start', type: 'Start', next: ['Label'] },
  { id: 'Label', name: 'Label', type: 'Label', next: ['Complete'] },
  { id: 'Complete', type: 'Complete', next: [] },
];

/** Gives a task of the Label stage to `user`, so the editor opens it for them. */
export async function holdInLabel(server: ConsoleServer, taskId: string | undefined, user: string): Promise<void> {
  const api = apiAs(server);
  const { task } = await api<{ task: { project: string } }>('GET', `/v2/task/${taskId}`);
  await api('POST', '/v2/task/assign', { project: task.project, tasks: [taskId], stage: 'Label', user });
}
