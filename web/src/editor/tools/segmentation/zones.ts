import polygonClipping, { type MultiPolygon, type Polygon, type Ring } from 'polygon-clipping';
import type { Vec } from '../../core/answer';
import { outlineHit, pointInPolygon, polygonArea, roundVec } from '../../core/plane';
import type { Hit } from '../../core/tool';
import { type MaskArea, traceZones } from '../../../../../src/shared/mask-outlines';

/** One connected part of a segmentation object: its outline and the holes inside it. */
export interface Zone {
  region: Vec[];
  holes: Vec[][];
}

/** A segmentation object: zones that never overlap, in image pixels. */
export interface Segmentation {
  zones: Zone[];
}

const closeRing = (ring: readonly Vec[]): Ring => {
  const first = ring[0];
  const last = ring[ring.length - 1];
  const pts = ring.map(([x, y]) => [x, y] as [number, number]);
  if (first && last && (first[0] !== last[0] || first[1] !== last[1])) pts.push([first[0], first[1]]);
  return pts;
};

/** Drops the repeated last point, rounds to 1/100 and removes points on a straight line. */
function openRing(ring: Ring): Vec[] {
  const pts = ring.slice(0, -1).map((p) => roundVec([p[0], p[1]]));
  const kept: Vec[] = [];
  for (let i = 0; i < pts.length; i++) {
    const a = pts[(i - 1 + pts.length) % pts.length]!;
    const b = pts[i]!;
    const c = pts[(i + 1) % pts.length]!;
    const cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
    if (cross !== 0) kept.push(b);
  }
  return kept;
}

export function toMulti(value: Segmentation): MultiPolygon {
  return value.zones
    .filter((z) => z.region.length >= 3)
    .map((z): Polygon => [closeRing(z.region), ...z.holes.filter((h) => h.length >= 3).map(closeRing)]);
}

export function fromMulti(multi: MultiPolygon): Segmentation {
  const zones: Zone[] = [];
  for (const [outer, ...holes] of multi) {
    if (!outer) continue;
    const region = openRing(outer);
    if (region.length < 3) continue;
    zones.push({ region, holes: holes.map(openRing).filter((h) => h.length >= 3) });
  }
  return { zones };
}

/**
 * The same area as zones that never overlap, with every hole inside its region and no outline
 * crossing itself (a figure of eight becomes two zones): the union of what was drawn.
 */
export function normalize(value: Segmentation): Segmentation {
  const multi = toMulti(value);
  return multi.length ? fromMulti(polygonClipping.union(multi)) : { zones: [] };
}

/** What both cover together (Shift: a zone added to an object). */
export const merge = (a: Segmentation, b: Segmentation) => fromMulti(polygonClipping.union(toMulti(a), toMulti(b)));

/** What `a` covers outside `b` (Alt: a hole cut, or a part taken away). */
export const subtract = (a: Segmentation, b: Segmentation) =>
  fromMulti(polygonClipping.difference(toMulti(a), toMulti(b)));

/** Square pixels covered: regions less their holes. */
export const areaOf = (value: Segmentation) =>
  value.zones.reduce((sum, z) => sum + polygonArea(z.region) - z.holes.reduce((s, h) => s + polygonArea(h), 0), 0);

/** Every ring: regions and holes. */
export const ringsOf = (value: Segmentation): Vec[][] => value.zones.flatMap((z) => [z.region, ...z.holes]);

/** Near an outline (a region's or a hole's), or inside a zone and not in its holes. */
export function hitZones(value: Segmentation, at: Vec, tolerance: number): Hit | undefined {
  let best: Hit | undefined;
  for (const ring of ringsOf(value)) {
    const h = outlineHit(ring, true, at, tolerance);
    if (h?.edge && (!best?.edge || h.measure < best.measure)) best = h;
  }
  if (best) return best;
  for (const z of value.zones) {
    if (pointInPolygon(at, z.region) && !z.holes.some((h) => pointInPolygon(at, h)))
      return { edge: false, measure: areaOf({ zones: [z] }) };
  }
  return undefined;
}

/**
 * A mask's pixels as zones (outlines on the pixels' edges, holes included): `mask` holds a byte a
 * pixel, row by row (not 0 is in); only the pixels in `area` are looked at (all when not given).
 */
export function zonesOfMask(width: number, height: number, mask: Uint8Array, area?: MaskArea): Segmentation {
  return { zones: traceZones(width, height, mask, area) };
}
