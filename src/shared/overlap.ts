import polygonClipping, { type MultiPolygon, type Ring } from 'polygon-clipping';

/*
 * The project setting `segmentationOverlap`: whether segmentation objects of one image (one frame
 * or page of a medium of many) may overlap. `later-wins` cuts what an object shares with the
 * objects drawn after it out of it, `earlier-wins` cuts what it shares with those drawn before it;
 * "drawn after" is the order of the answer's objects, which is the order they were drawn in. The
 * editor applies it as objects are drawn and edited, the server when an answer is saved, by this
 * one rule. Pure: the console and the server both compile this file (polygon-clipping aside).
 */

export const OVERLAP_RULES = ['allow', 'later-wins', 'earlier-wins'] as const;
export type OverlapRule = (typeof OVERLAP_RULES)[number];

type Point = [number, number];
export interface ZonesValue {
  zones: { region: Point[]; holes: Point[][] }[];
}

/** One segmentation object in drawing order: its zones and the frame or page it is on. */
export interface Layered {
  value: ZonesValue;
  page?: number | undefined;
}

/**
 * Shared areas smaller than this (square pixels) are left alone: vertices are kept to 1/100 of a
 * pixel, so two objects cut along one edge may still share a sliver that no mask pixel shows.
 */
export const OVERLAP_AREA_TOLERANCE = 0.5;

export function isOverlapRule(v: unknown): v is OverlapRule {
  return typeof v === 'string' && (OVERLAP_RULES as readonly string[]).includes(v);
}

const round = (n: number) => Math.round(n * 100) / 100;

function closed(ring: readonly Point[]): Ring {
  const pts = ring.map(([x, y]) => [x, y] as [number, number]);
  const first = ring[0];
  const last = ring[ring.length - 1];
  if (first && last && (first[0] !== last[0] || first[1] !== last[1])) pts.push([first[0], first[1]]);
  return pts;
}

function toMulti(value: ZonesValue): MultiPolygon {
  return value.zones.map((z) => [closed(z.region), ...z.holes.map(closed)]);
}

/** The ring without repeated consecutive points and without a closing copy of the first. */
export function openRing(points: readonly Point[]): Point[] {
  const out: Point[] = [];
  for (const p of points) {
    const last = out[out.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p);
  }
  const first = out[0];
  const last = out[out.length - 1];
  if (out.length > 1 && first && last && first[0] === last[0] && first[1] === last[1]) out.pop();
  return out;
}

/** Open rings rounded to 1/100; rings left with fewer than 3 points dropped. */
function fromMulti(multi: MultiPolygon): ZonesValue {
  const open = (ring: Ring): Point[] => openRing(ring.map(([x, y]) => [round(x), round(y)] as Point));
  const zones: ZonesValue['zones'] = [];
  for (const [outer, ...holes] of multi) {
    const region = outer ? open(outer) : [];
    if (region.length >= 3) zones.push({ region, holes: holes.map(open).filter((h) => h.length >= 3) });
  }
  return { zones };
}

function ringArea(ring: readonly (readonly number[])[]): number {
  let sum = 0;
  for (let i = 0; i < ring.length; i++) {
    const a = ring[i]!;
    const b = ring[(i + 1) % ring.length]!;
    sum += a[0]! * b[1]! - b[0]! * a[1]!;
  }
  return Math.abs(sum) / 2;
}

function multiArea(multi: MultiPolygon): number {
  return multi.reduce((s, poly) => s + poly.reduce((t, ring, i) => t + (i ? -1 : 1) * ringArea(ring), 0), 0);
}

export function zonesArea(value: ZonesValue): number {
  return value.zones.reduce((s, z) => s + ringArea(z.region) - z.holes.reduce((t, h) => t + ringArea(h), 0), 0);
}

type Box = [number, number, number, number];
function boxOf(value: ZonesValue): Box {
  const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const z of value.zones)
    for (const [x, y] of z.region) {
      box[0] = Math.min(box[0], x);
      box[1] = Math.min(box[1], y);
      box[2] = Math.max(box[2], x);
      box[3] = Math.max(box[3], y);
    }
  return box;
}
const boxesMeet = (a: Box, b: Box) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

export interface Settled {
  /** The object's zones after the rule (the same object when nothing was cut). */
  value: ZonesValue;
  /** Something was cut away. */
  cut: boolean;
  /** Nothing is left of it: every part lies under objects that win over it. */
  covered: boolean;
  /** The index of an object that took part of it (the first one found). */
  by?: number | undefined;
}

/**
 * Every object after the rule. With `only` (indexes), just the pairs that involve one of them
 * are looked at: the editor settles the object that changed against the others.
 */
export function settleOverlaps(objects: readonly Layered[], rule: OverlapRule, only?: ReadonlySet<number>): Settled[] {
  const out: Settled[] = objects.map((o) => ({ value: o.value, cut: false, covered: false }));
  if (rule === 'allow') return out;
  const boxes = objects.map((o) => boxOf(o.value));
  const winners: number[][] = objects.map(() => []);
  for (let i = 0; i < objects.length; i++)
    for (let j = i + 1; j < objects.length; j++) {
      if (only && !only.has(i) && !only.has(j)) continue;
      if ((objects[i]!.page ?? -1) !== (objects[j]!.page ?? -1) || !boxesMeet(boxes[i]!, boxes[j]!)) continue;
      // The later of the two wins under later-wins, the earlier under earlier-wins.
      if (rule === 'later-wins') winners[i]!.push(j);
      else winners[j]!.push(i);
    }
  winners.forEach((over, i) => {
    if (!over.length) return;
    const own = toMulti(objects[i]!.value);
    const shared = over.filter(
      (j) => multiArea(polygonClipping.intersection(own, toMulti(objects[j]!.value))) > OVERLAP_AREA_TOLERANCE,
    );
    if (!shared.length) return;
    const left = fromMulti(polygonClipping.difference(own, ...shared.map((j) => toMulti(objects[j]!.value))));
    out[i] = { value: left, cut: true, covered: zonesArea(left) <= OVERLAP_AREA_TOLERANCE, by: shared[0] };
  });
  return out;
}
