import { PNG } from 'pngjs';
import { expect } from 'vitest';
import type { TestApp } from './app.js';

/** Uploads a task's brush layer (POST /task/{id}/brush, raw PNG) and answers its `brushDataUrl`. */
export async function uploadBrushLayer(t: TestApp, taskId: string, png: Buffer, key = t.ownerKey): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v2/task/${taskId}/brush`,
    headers: { apikey: key, 'content-type': 'image/png' },
    payload: png,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.brushDataUrl as string;
}

/** An RGBA colour and the rectangle [x0, y0, x1, y1) it paints. */
export type PaintedRect = [number[], number, number, number, number];

/** A transparent width x height layer with each rectangle painted in its colour, in order (later over earlier). */
export function rectLayer(width: number, height: number, rects: readonly PaintedRect[]): Buffer {
  const png = new PNG({ width, height });
  for (const [colour, x0, y0, x1, y1] of rects) {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) png.data.set(colour, (y * width + x) * 4);
  }
  return PNG.sync.write(png);
}
