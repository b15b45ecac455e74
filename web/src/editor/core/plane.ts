import type { BoxGeometry, Vec } from './answer';
import type { Hit } from './tool';

/** Plane coordinates (and degrees) are kept to 1/100: what a pointer can place, without float noise. */
export const round = (n: number) => Math.round(n * 100) / 100;
export const roundVec = ([x, y]: Vec): Vec => [round(x), round(y)];

/** Keeps a point inside a medium of this size. */
export function clampTo([x, y]: Vec, width: number, height: number): Vec {
  return [Math.min(width, Math.max(0, x)), Math.min(height, Math.max(0, y))];
}

/** The box spanned by two corners dragged in any direction. */
export function boxFromCorners(a: Vec, b: Vec): BoxGeometry {
  return {
    x: round(Math.min(a[0], b[0])),
    y: round(Math.min(a[1], b[1])),
    width: round(Math.abs(b[0] - a[0])),
    height: round(Math.abs(b[1] - a[1])),
  };
}

/** The axis-aligned bounds of some vertices; null for none. */
export function boundsOf(pts: readonly Vec[]): BoxGeometry | null {
  if (pts.length === 0) return null;
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/** Ray casting: is `p` inside the polygon? */
export function pointInPolygon([px, py]: Vec, poly: readonly Vec[]): boolean {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i] as Vec;
    const [xj, yj] = poly[j] as Vec;
    if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Distance from `p` to the segment a-b. */
function segmentDistance([px, py]: Vec, [ax, ay]: Vec, [bx, by]: Vec): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len = dx * dx + dy * dy;
  const t = len === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** The area enclosed by a closed outline (shoelace formula), in square medium units. */
export function polygonArea(pts: readonly Vec[]): number {
  let twice = 0;
  for (let i = 0; i < pts.length; i++) {
    const [ax, ay] = pts[i] as Vec;
    const [bx, by] = pts[(i + 1) % pts.length] as Vec;
    twice += ax * by - bx * ay;
  }
  return Math.abs(twice) / 2;
}

/**
 * How a click at `p` lands on an outline: `edge` within `tolerance` of it (with the distance),
 * otherwise `inside` a closed one (with the area it encloses); undefined when it misses.
 */
export function outlineHit(pts: readonly Vec[], closed: boolean, p: Vec, tolerance: number): Hit | undefined {
  let nearest = Infinity;
  for (let i = 0; i + 1 < pts.length + (closed ? 1 : 0); i++) {
    nearest = Math.min(nearest, segmentDistance(p, pts[i] as Vec, pts[(i + 1) % pts.length] as Vec));
  }
  if (nearest <= tolerance) return { edge: true, measure: nearest };
  if (closed && pointInPolygon(p, pts)) return { edge: false, measure: polygonArea(pts) };
  return undefined;
}

/** A path through the vertices (closed for an area), for the batch of untouched objects. */
export function pathThrough(pts: readonly Vec[], closed: boolean): Path2D {
  const path = new Path2D();
  pts.forEach(([x, y], i) => (i === 0 ? path.moveTo(x, y) : path.lineTo(x, y)));
  if (closed) path.closePath();
  return path;
}
