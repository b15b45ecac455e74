import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Waits for the 3D editor to draw a frame (from 0); answers where a ground point (metres, the
 * lidar's x and y) is on the screen in the top view, from the numbers its canvas carries.
 */
export async function topView(page: Page, frame: number): Promise<(x: number, y: number) => [number, number]> {
  const c = page.getByTestId('pointcloud-canvas');
  await expect.poll(() => c.getAttribute('data-frame'), { timeout: 15_000 }).toBe(String(frame));
  await expect.poll(() => c.getAttribute('data-ready')).toBe('true');
  const box = (await c.boundingBox())!;
  const read = async (name: string) => Number(await c.getAttribute(`data-${name}`));
  const [scale, cx, cy, width, height] = await Promise.all(['scale', 'cx', 'cy', 'width', 'height'].map(read));
  return (x: number, y: number): [number, number] => [
    box.x + width! / 2 - (y - cy!) * scale!,
    box.y + height! / 2 - (x - cx!) * scale!,
  ];
}

/** A field of the selected cuboid (x, y, z, length, width, height, yaw). */
export const cuboidField = (page: Page, name: string) =>
  page.getByRole('group', { name: /Selected cuboid/ }).getByLabel(name, { exact: true });

/** Types a frame number (from 1, as the frame bar counts) into the frame bar. */
export async function toFrame(page: Page, n: number): Promise<void> {
  await page.getByLabel('Frame', { exact: true }).fill(String(n));
  await page.getByLabel('Frame', { exact: true }).press('Enter');
}

/**
 * Waits for a camera's image of the frame and scrolls it into the window; answers where a pixel
 * of the image (`imageWidth` pixels wide) is on the screen, from the canvas's size on the page alone.
 */
export async function cameraView(
  page: Page,
  camera: string,
  imageWidth: number,
): Promise<(p: [number, number]) => [number, number]> {
  const c = page.locator(`canvas[data-camera="${camera}"]`);
  await expect.poll(() => c.getAttribute('data-ready')).toBe('true');
  // The cameras sit below the views: brought into the window, where the mouse reaches them.
  await c.scrollIntoViewIfNeeded();
  const box = (await c.boundingBox())!;
  const scale = box.width / imageWidth;
  return ([x, y]) => [box.x + x * scale, box.y + y * scale];
}
