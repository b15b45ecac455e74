import { describe, expect, it } from 'vitest';
import { traceZones, type TracedZone } from '../../src/shared/mask-outlines.js';
import { checkSegmentation } from '../../src/workflow/zones.js';
import { ringArea, zonesArea } from '../helpers/rings.js';

/*
 * Masks traced into zones along the pixels' edges: the zones cover exactly the pixels in (area
 * equals the count, every pixel centre in or out as its pixel is), no ring passes a vertex twice,
 * and the API's own check of segmentation objects takes every tracing as it is. Pixels touching
 * by a corner only, a ring that comes back to one of its corners, holes and islands in holes are
 * the cases that break naive tracers; random masks hold all of them.
 */

/** A mask from rows of '#' (in) and '.' (out). */
function maskOf(rows: string[]): { width: number; height: number; pixels: Uint8Array } {
  const width = rows[0]!.length;
  const pixels = new Uint8Array(width * rows.length);
  rows.forEach((row, y) => [...row].forEach((c, x) => (pixels[y * width + x] = c === '#' ? 1 : 0)));
  return { width, height: rows.length, pixels };
}

function inRing([px, py]: [number, number], ring: readonly (readonly number[])[]): boolean {
  let hit = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as [number, number];
    const [xj, yj] = ring[j] as [number, number];
    if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) hit = !hit;
  }
  return hit;
}

const covers = (zones: TracedZone[], p: [number, number]) =>
  zones.some((z) => inRing(p, z.region) && !z.holes.some((h) => inRing(p, h)));

/** Every property a tracing must have, for the mask given. */
function expectExact(width: number, height: number, pixels: Uint8Array, zones: TracedZone[]): void {
  expect(zonesArea(zones)).toBe(pixels.reduce((n, v) => n + (v ? 1 : 0), 0));
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) expect(covers(zones, [x + 0.5, y + 0.5])).toBe(pixels[y * width + x] === 1);
  for (const ring of zones.flatMap((z) => [z.region, ...z.holes]))
    expect(new Set(ring.map((p) => p.join(','))).size).toBe(ring.length);
  if (zones.length) {
    const checked = checkSegmentation({ zones }, 'segmentation');
    expect(checked.errors).toEqual([]);
  }
}

/** A repeatable pseudo-random source (the test fails the same way every time). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

describe('traceZones', () => {
  it('traces a square with a square hole as one zone with one hole', () => {
    const { width, height, pixels } = maskOf(['.....', '.###.', '.#.#.', '.###.', '.....']);
    const zones = traceZones(width, height, pixels);
    expect(zones).toHaveLength(1);
    expect(zones[0]!.region).toHaveLength(4);
    expect(zones[0]!.holes).toHaveLength(1);
    expect(ringArea(zones[0]!.holes[0]!)).toBe(1);
    expectExact(width, height, pixels, zones);
  });

  it('keeps pixels touching by a corner apart, and splits a ring that comes back to its corner', () => {
    const diagonal = maskOf(['#.', '.#']);
    expect(traceZones(diagonal.width, diagonal.height, diagonal.pixels)).toHaveLength(2);
    // A C whose ends touch by a corner: the inside is open to the outside through that corner.
    const c = maskOf(['.###.', '.#...', '.#.#.', '.###.']);
    const zones = traceZones(c.width, c.height, c.pixels);
    expectExact(c.width, c.height, c.pixels, zones);
    // A ring of pixels round a hole, closed by a corner only: the hole touches its region there.
    const closed = maskOf(['###.', '#.#.', '##.#', '..##']);
    expectExact(closed.width, closed.height, closed.pixels, traceZones(closed.width, closed.height, closed.pixels));
  });

  it('looks only at the area given, in the coordinates of the whole mask', () => {
    const { width, height, pixels } = maskOf(['#.....', '..##..', '..##..', '......']);
    const zones = traceZones(width, height, pixels, [1, 1, 4, 3]);
    expect(zones).toEqual([
      {
        region: [
          [2, 1],
          [4, 1],
          [4, 3],
          [2, 3],
        ],
        holes: [],
      },
    ]);
  });

  it('traces random masks exactly, as the API accepts them', () => {
    const next = random(29);
    for (let trial = 0; trial < 400; trial++) {
      const width = 1 + Math.floor(next() * 14);
      const height = 1 + Math.floor(next() * 14);
      const density = next();
      const pixels = new Uint8Array(width * height).map(() => (next() < density ? 1 : 0));
      expectExact(width, height, pixels, traceZones(width, height, pixels));
    }
  });
});
