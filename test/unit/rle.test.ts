import { describe, expect, it } from 'vitest';
import { emptyRaster, encodeRle, type Raster } from '../../src/services/files/layers/raster.js';

/*
 * COCO's uncompressed RLE: run lengths down each column (column-major), starting with a run of
 * pixels that are not the value. The encoder reads the raster row by row and sorts the run
 * boundaries by column; here it is checked against the definition read column by column, on
 * masks of few runs, of a boundary in every column and row, and of random pixels.
 */

function byDefinition(r: Raster, value: number): number[] {
  const counts: number[] = [];
  let inside = false;
  let run = 0;
  for (let x = 0; x < r.width; x++) {
    for (let y = 0; y < r.height; y++) {
      const hit = r.data[y * r.width + x] === value;
      if (hit !== inside) {
        counts.push(run);
        run = 0;
        inside = hit;
      }
      run++;
    }
  }
  counts.push(run);
  return counts;
}

/** A repeatable pseudo-random source (the test fails the same way every time). */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function raster(width: number, height: number, paint: (x: number, y: number) => number): Raster {
  const r = emptyRaster(width, height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) r.data[y * width + x] = paint(x, y);
  return r;
}

describe('COCO RLE of a mask', () => {
  it('counts down each column, starting with the pixels that are not the value', () => {
    const r = raster(3, 2, (x, y) => (x === 1 || (x === 2 && y === 1) ? 1 : 0));
    expect(encodeRle(r, 1)).toEqual({ counts: [2, 2, 1, 1], size: [2, 3] });
    expect(encodeRle(emptyRaster(4, 3), 1)).toEqual({ counts: [12], size: [3, 4] });
    expect(
      encodeRle(
        raster(2, 2, () => 1),
        1,
      ),
    ).toEqual({ counts: [0, 4], size: [2, 2] });
  });

  it('agrees with the definition on stripes, a checkerboard, other values and random pixels', () => {
    const random = lcg(7);
    const masks: [Raster, number][] = [
      [raster(40, 30, (_x, y) => (y % 4 < 2 ? 1 : 0)), 1],
      [raster(33, 17, (x, y) => (x + y) % 2), 1],
      [raster(25, 19, (x, y) => (x * y) % 3), 2],
      [raster(64, 48, () => (random() < 0.5 ? 1 : 0)), 1],
      [raster(1, 50, (_x, y) => (y > 10 ? 1 : 0)), 1],
      [raster(50, 1, (x) => (x % 3 === 0 ? 1 : 0)), 1],
    ];
    for (const [mask, value] of masks) {
      const rle = encodeRle(mask, value);
      expect(rle.counts).toEqual(byDefinition(mask, value));
      expect(rle.counts.reduce((a, b) => a + b, 0)).toBe(mask.width * mask.height);
    }
  });
});
