import polygonClipping, { type Polygon, type Ring } from 'polygon-clipping';
import type { FieldError } from '../errors.js';
import { openRing } from '../shared/overlap.js';

/*
 * Segmentation objects: `{zones: [{region: [[x, y], ...], holes: [[[x, y], ...], ...]}]}` in image
 * pixels. A ring has 3 points or more (a closing point equal to the first is dropped), never
 * crosses itself (refused, not repaired: the editor repairs outlines before saving); each hole
 * lies inside its region; the zones of one object do not overlap (touching is allowed).
 */

export type Point = [number, number];
export interface Zone {
  region: Point[];
  holes: Point[][];
}

/** Overlaps smaller than this many square pixels are rounding, not overlap. */
const AREA_EPSILON = 1e-6;
/** Rings longer than this are refused: a traced mask never needs them. */
export const MAX_RING_POINTS = 100_000;

function isPoint(v: unknown): v is Point {
  return Array.isArray(v) && v.length === 2 && v.every((n) => typeof n === 'number' && Number.isFinite(n));
}

function cross(o: Point, a: Point, b: Point): number {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/** Whether p, known to be on the line through ab, lies within the segment. */
function onSegment(p: Point, a: Point, b: Point): boolean {
  return (
    Math.min(a[0], b[0]) <= p[0] &&
    p[0] <= Math.max(a[0], b[0]) &&
    Math.min(a[1], b[1]) <= p[1] &&
    p[1] <= Math.max(a[1], b[1])
  );
}

/** Whether segments ab and cd share any point (touching included). */
function segmentsMeet(a: Point, b: Point, c: Point, d: Point): boolean {
  const d1 = cross(c, d, a);
  const d2 = cross(c, d, b);
  const d3 = cross(a, b, c);
  const d4 = cross(a, b, d);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  return (
    (d1 === 0 && onSegment(a, c, d)) ||
    (d2 === 0 && onSegment(b, c, d)) ||
    (d3 === 0 && onSegment(c, a, b)) ||
    (d4 === 0 && onSegment(d, a, b))
  );
}

/**
 * Whether the ring crosses or touches itself: two edges that are not neighbours meet. Edges are
 * sorted by their left end so only edges whose x ranges overlap are compared.
 */
export function selfIntersects(ring: Point[]): boolean {
  const n = ring.length;
  const edges = ring.map((a, i) => {
    const b = ring[(i + 1) % n] as Point;
    return { i, a, b, minX: Math.min(a[0], b[0]), maxX: Math.max(a[0], b[0]) };
  });
  edges.sort((e, f) => e.minX - f.minX);
  for (let s = 0; s < edges.length; s++) {
    const e = edges[s] as (typeof edges)[number];
    for (let t = s + 1; t < edges.length; t++) {
      const f = edges[t] as (typeof edges)[number];
      if (f.minX > e.maxX) break;
      const gap = Math.abs(e.i - f.i);
      // Neighbours share a vertex by construction.
      if (gap === 1 || gap === n - 1) continue;
      if (segmentsMeet(e.a, e.b, f.a, f.b)) return true;
    }
  }
  return false;
}

type Box = [number, number, number, number];

function boxOf(ring: Point[]): Box {
  const xs = ring.map((p) => p[0]);
  const ys = ring.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

function boxesOverlap(a: Box, b: Box): boolean {
  return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
}

function ringArea(ring: Ring): number {
  let sum = 0;
  for (let i = 0; i < ring.length; i++) {
    const a = ring[i] as [number, number];
    const b = ring[(i + 1) % ring.length] as [number, number];
    sum += a[0] * b[1] - b[0] * a[1];
  }
  return Math.abs(sum) / 2;
}

/** Area of a polygon-clipping result (outer rings less holes). */
export function multiPolygonArea(mp: Polygon[]): number {
  return mp.reduce((sum, poly) => sum + poly.reduce((s, ring, i) => s + (i === 0 ? 1 : -1) * ringArea(ring), 0), 0);
}

/** A zone's area in square pixels: its region less its holes. */
export function zoneArea(zone: Zone): number {
  return ringArea(zone.region) - zone.holes.reduce((s, h) => s + ringArea(h), 0);
}

function checkRing(v: unknown, field: string, errors: FieldError[]): Point[] | undefined {
  if (!Array.isArray(v)) return void errors.push({ field, message: 'must be an array of [x, y] points' });
  if (v.length > MAX_RING_POINTS)
    return void errors.push({ field, message: `must have at most ${MAX_RING_POINTS} points` });
  const bad = v.findIndex((p) => !isPoint(p));
  if (bad >= 0) return void errors.push({ field: `${field}[${bad}]`, message: 'must be [x, y], two finite numbers' });
  const ring = openRing(v as Point[]);
  if (ring.length < 3) return void errors.push({ field, message: 'must have at least 3 distinct points' });
  if (selfIntersects(ring))
    return void errors.push({ field, message: 'crosses itself; send an outline that does not' });
  if (ringArea(ring) === 0)
    return void errors.push({ field, message: 'must enclose an area (its points are on one line)' });
  return ring;
}

/**
 * Checks a segmentation object's geometry. Answers the normalised value (rings open, `holes`
 * always present) and the errors, each naming its path below `field`.
 */
export function checkSegmentation(value: unknown, field: string): { value?: { zones: Zone[] }; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const zonesIn = (value as { zones?: unknown } | null)?.zones;
  if (typeof value !== 'object' || value === null || !Array.isArray(zonesIn) || zonesIn.length === 0) {
    errors.push({ field, message: 'must be {zones: [{region: [[x, y], ...], holes: [[[x, y], ...], ...]}, ...]}' });
    return { errors };
  }
  const zones: Zone[] = [];
  zonesIn.forEach((z: unknown, i) => {
    const zf = `${field}.zones[${i}]`;
    if (typeof z !== 'object' || z === null) return void errors.push({ field: zf, message: 'must be {region, holes}' });
    const { region: r, holes: h } = z as { region?: unknown; holes?: unknown };
    const region = checkRing(r, `${zf}.region`, errors);
    if (h !== undefined && !Array.isArray(h))
      return void errors.push({ field: `${zf}.holes`, message: 'must be an array of rings' });
    const holes: Point[][] = [];
    ((h ?? []) as unknown[]).forEach((hole, j) => {
      const hf = `${zf}.holes[${j}]`;
      const ring = checkRing(hole, hf, errors);
      if (!ring || !region) return;
      const outside = multiPolygonArea(polygonClipping.difference([ring], [region]));
      if (outside > AREA_EPSILON) errors.push({ field: hf, message: 'must lie inside its region' });
      else holes.push(ring);
    });
    if (region) zones.push({ region, holes });
    return undefined;
  });
  if (errors.length) return { errors };
  const boxes = zones.map((z) => boxOf(z.region));
  for (let i = 0; i < zones.length; i++) {
    for (let j = i + 1; j < zones.length; j++) {
      const a = zones[i] as Zone;
      const b = zones[j] as Zone;
      if (!boxesOverlap(boxes[i] as Box, boxes[j] as Box)) continue;
      const shared = multiPolygonArea(polygonClipping.intersection([a.region, ...a.holes], [b.region, ...b.holes]));
      if (shared > AREA_EPSILON) {
        errors.push({ field: `${field}.zones[${j}]`, message: `overlaps zones[${i}] of the same object; merge them` });
      }
    }
  }
  return errors.length ? { errors } : { value: { zones }, errors };
}
