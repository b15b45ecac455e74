import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { canvasView } from './editor-page.js';

/*
 * Videos whose frames show their own index as a bar code, made by ffmpeg from raw frames: `bits`
 * bars over the top half (white for a 1 bit, lowest bit on the left), a floor under them (grey,
 * or noise that makes every frame weigh as a real picture does).
 */

export interface Bars {
  width: number;
  height: number;
  frames: number;
  bits: number;
  /** Noise in the bottom half (a file of some size); a flat grey otherwise. */
  noise?: boolean;
}

function barFrames(b: Bars): Buffer {
  const { width: W, height: H } = b;
  const frames = Buffer.alloc(W * H * 3 * b.frames);
  const bar = W / b.bits;
  let seed = 12345;
  for (let n = 0; n < b.frames; n++) {
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        let v = 128;
        if (y < H / 2) v = (n >> Math.floor(x / bar)) & 1 ? 255 : 0;
        else if (b.noise) {
          seed = (seed * 1103515245 + 12345) >>> 0;
          v = seed >>> 24;
        }
        frames.fill(v, ((n * H + y) * W + x) * 3, ((n * H + y) * W + x) * 3 + 3);
      }
    }
  }
  return frames;
}

/** The bar video encoded by ffmpeg with `args` (codec and options) into a file named `name`. */
export function encodeBars(b: Bars, name: string, args: string[]): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-video-'));
  const out = path.join(dir, name);
  const input = ['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${b.width}x${b.height}`, '-r', '30', '-i', 'pipe:0'];
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', ...input, ...args, out], {
    input: barFrames(b),
    maxBuffer: 1 << 30,
  });
  const body = fs.readFileSync(out);
  fs.rmSync(dir, { recursive: true, force: true });
  return body;
}

/** The frame index the editor's canvas shows, read from its bar code's pixels on the screen. */
export async function shownIndex(page: Page, b: Pick<Bars, 'width' | 'height' | 'bits'>): Promise<number> {
  const view = await canvasView(page);
  const box = (await page.getByTestId('editor-canvas').boundingBox())!;
  const bar = b.width / b.bits;
  const points = Array.from({ length: b.bits }, (_, bit) => view.screen([bit * bar + bar / 2, b.height / 4])).map(
    ([x, y]) => [x - box.x, y - box.y],
  );
  return page.evaluate<number>(`(() => {
    const canvas = document.querySelector('[data-testid="editor-canvas"] canvas');
    const ratio = canvas.width / canvas.clientWidth;
    const ctx = canvas.getContext('2d');
    return ${JSON.stringify(points)}.reduce((n, [x, y], bit) => {
      const [r] = ctx.getImageData(Math.round(x * ratio), Math.round(y * ratio), 1, 1).data;
      return r > 128 ? n | (1 << bit) : n;
    }, 0);
  })()`);
}
