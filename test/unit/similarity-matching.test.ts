import { describe, expect, it } from 'vitest';
import { bestMatch, matchObjects, objectSimilarity } from '../../src/workflow/consensus/similarity.js';

/*
 * matchObjects prepares each object once and compares only pairs whose bounding boxes come
 * within reach (a search over the objects sorted by left edge). On random input its matches must
 * be exactly those of comparing every pair with each object read anew (objectSimilarity).
 */

function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function ngon(rnd: () => number, cx: number, cy: number, r: number, n: number): number[][] {
  return Array.from({ length: n }, (_, k) => {
    const a = (2 * Math.PI * k) / n;
    const rr = r * (0.5 + rnd());
    return [cx + rr * Math.cos(a), cy + rr * Math.sin(a)];
  });
}

/** An object of `kind` somewhere on a small canvas, so many overlap; now and then malformed or on page 2. */
function object(rnd: () => number, kind: string): Record<string, unknown> {
  const [x, y] = [rnd() * 400, rnd() * 300];
  const size = 5 + rnd() * (rnd() < 0.05 ? 300 : 60);
  const page = rnd() < 0.1 ? { page: 2 } : {};
  if (rnd() < 0.03) return { [kind]: 'broken' };
  switch (kind) {
    case 'bounding-box':
      // Negative sizes too: a box drawn from its lower right corner.
      return { ...page, [kind]: { x, y, width: (rnd() - 0.2) * size, height: (rnd() - 0.2) * size } };
    case 'rotated-bounding-box':
      return { ...page, [kind]: { x, y, width: size, height: size / 2, rotation: rnd() * 360 } };
    case 'polygon':
      return { ...page, polygon: ngon(rnd, x, y, size / 2, 3 + Math.floor(rnd() * 10)) };
    case 'point':
      return { ...page, point: rnd() < 0.5 ? [x, y] : { x, y } };
    case 'polyline':
      return { ...page, polyline: ngon(rnd, x, y, size, 6).slice(0, 2 + Math.floor(rnd() * 4)) };
    case 'segmentation': {
      const region = ngon(rnd, x, y, size / 2, 5 + Math.floor(rnd() * 8)).map(([px, py]) => [
        x + ((px as number) - x) * 1.6,
        y + ((py as number) - y) * 1.6,
      ]);
      const holes = rnd() < 0.4 ? [ngon(rnd, x, y, size / 8, 4)] : [];
      return { ...page, segmentation: { zones: [{ region, holes }] } };
    }
    default:
      return { ...page, ner: { start: Math.floor(x), end: Math.floor(x + size / 4) } };
  }
}

const KINDS = ['bounding-box', 'rotated-bounding-box', 'polygon', 'point', 'polyline', 'segmentation', 'ner'];

describe('matching objects by their bounding boxes', () => {
  for (const kind of KINDS) {
    it(`matches ${kind} objects exactly as comparing every pair does`, () => {
      const rnd = random(KINDS.indexOf(kind) + 7);
      let matched = 0;
      for (let round = 0; round < 12; round += 1) {
        const a = Array.from({ length: 1 + Math.floor(rnd() * 40) }, () => object(rnd, kind));
        const b = Array.from({ length: Math.floor(rnd() * 40) }, () => object(rnd, kind));
        const fast = matchObjects(kind, a, b);
        const everyPair = bestMatch(a, b, (x, y) => objectSimilarity(kind, x, y) ?? 0);
        expect(fast).toEqual(everyPair);
        matched += everyPair.length;
      }
      // The random objects do overlap: the comparison is not between two empty lists.
      expect(matched).toBeGreaterThan(10);
    });
  }
});
