import {
  type Box,
  type Pt,
  type RotatedBox,
  rotatedBoxCorners,
  signedArea,
} from '../../../workflow/consensus/geometry.js';
import type { Ring } from '../../files/layers/raster.js';

export type { Box, Pt, RotatedBox };

/*
 * The geometry of stored answers (DECISIONS sections 4 and 10), read defensively: a value of the
 * wrong shape reads as undefined and the object is counted as dropped, never thrown on.
 */

export interface Zone {
  region: Pt[];
  holes: Pt[][];
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const point = (v: unknown): Pt | undefined => (Array.isArray(v) && num(v[0]) && num(v[1]) ? [v[0], v[1]] : undefined);

export function readPoints(v: unknown, min: number): Pt[] | undefined {
  if (!Array.isArray(v) || v.length < min) return undefined;
  const pts = v.map(point);
  return pts.every((p) => p !== undefined) ? (pts as Pt[]) : undefined;
}

export function readBox(v: unknown): Box | undefined {
  const b = v as Record<string, unknown> | null;
  if (!b || typeof b !== 'object' || ![b.x, b.y, b.width, b.height].every(num)) return undefined;
  return { x: b.x as number, y: b.y as number, width: b.width as number, height: b.height as number };
}

export function readRotatedBox(v: unknown): RotatedBox | undefined {
  const box = readBox(v);
  const rotation = (v as { rotation?: unknown } | undefined)?.rotation;
  return box && num(rotation) ? { ...box, rotation } : undefined;
}

export function readPoint(v: unknown): Pt | undefined {
  return point(v);
}

/** `segmentation: {zones: [{region, holes}]}` (DECISIONS 10); zones of the wrong shape are left out. */
export function readZones(v: unknown): Zone[] | undefined {
  const zones = (v as { zones?: unknown } | undefined)?.zones;
  if (!Array.isArray(zones)) return undefined;
  const out: Zone[] = [];
  for (const z of zones) {
    const region = readPoints((z as { region?: unknown })?.region, 3);
    if (!region) continue;
    const rawHoles = (z as { holes?: unknown }).holes;
    const holes = (Array.isArray(rawHoles) ? rawHoles : []).map((h) => readPoints(h, 3)).filter((h) => !!h);
    out.push({ region, holes: holes as Pt[][] });
  }
  return out.length ? out : undefined;
}

/** Corners of a rotated box: (x, y) is the top-left corner before rotation, degrees clockwise about the centre. */
export const rotatedCorners = rotatedBoxCorners;

export function boxCorners(b: Box): Pt[] {
  return rotatedCorners({ ...b, rotation: 0 });
}

/** The enclosing axis-aligned box of points. */
export function enclosing(points: readonly Pt[]): Box {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/** Area of a ring, whichever way it runs. */
export function ringArea(ring: Ring): number {
  return Math.abs(signedArea(ring));
}

/** A box clipped to the image; undefined when nothing of it is inside. */
export function clipBox(b: Box, width: number, height: number): Box | undefined {
  const x1 = Math.max(0, b.x);
  const y1 = Math.max(0, b.y);
  const x2 = Math.min(width, b.x + b.width);
  const y2 = Math.min(height, b.y + b.height);
  return x2 > x1 && y2 > y1 ? { x: x1, y: y1, width: x2 - x1, height: y2 - y1 } : undefined;
}

/** Rounded to 2 decimals: exports stay readable and within 0.005 px of what was drawn. */
export const r2 = (v: number) => Math.round(v * 100) / 100;
