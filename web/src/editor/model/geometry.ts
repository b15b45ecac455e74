import type { BoxGeometry, Geometry, RotatedBoxGeometry, Vec } from './types';

/** Image pixels (and degrees) are kept to 1/100: what a pointer can place, without float noise. */
export const round = (n: number) => Math.round(n * 100) / 100;
const roundVec = ([x, y]: Vec): Vec => [round(x), round(y)];

/** Keeps a point inside the image. */
export function clampToImage([x, y]: Vec, width: number, height: number): Vec {
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

/** Corners of a rotated box (rotation in degrees about (x, y)), clockwise from (x, y). */
export function rotatedCorners(b: RotatedBoxGeometry): Vec[] {
  const r = (b.rotation * Math.PI) / 180;
  const cos = Math.cos(r);
  const sin = Math.sin(r);
  const at = (dx: number, dy: number): Vec => [b.x + dx * cos - dy * sin, b.y + dx * sin + dy * cos];
  return [at(0, 0), at(b.width, 0), at(b.width, b.height), at(0, b.height)];
}

/** The geometry moved by (dx, dy) image pixels. */
export function translate(g: Geometry, dx: number, dy: number): Geometry {
  const shift = ([x, y]: Vec): Vec => roundVec([x + dx, y + dy]);
  switch (g.kind) {
    case 'bounding-box':
      return { kind: g.kind, value: { ...g.value, x: round(g.value.x + dx), y: round(g.value.y + dy) } };
    case 'rotated-bounding-box':
      return { kind: g.kind, value: { ...g.value, x: round(g.value.x + dx), y: round(g.value.y + dy) } };
    case 'polygon':
    case 'polyline':
      return { kind: g.kind, value: g.value.map(shift) };
    case 'point':
      return { kind: g.kind, value: shift(g.value) };
    case 'ner':
      return g;
  }
}

/** The geometry with vertex `index` moved to `to` (polygons, polylines, points). */
export function moveVertex(g: Geometry, index: number, to: Vec): Geometry {
  if (g.kind === 'polygon' || g.kind === 'polyline') {
    return { kind: g.kind, value: g.value.map((p, i) => (i === index ? roundVec(to) : p)) };
  }
  if (g.kind === 'point') return { kind: 'point', value: roundVec(to) };
  return g;
}

/** The vertex list a geometry is drawn through, in image pixels. */
export function outline(g: Geometry): Vec[] {
  switch (g.kind) {
    case 'bounding-box': {
      const { x, y, width, height } = g.value;
      return [
        [x, y],
        [x + width, y],
        [x + width, y + height],
        [x, y + height],
      ];
    }
    case 'rotated-bounding-box':
      return rotatedCorners(g.value);
    case 'polygon':
    case 'polyline':
      return g.value;
    case 'point':
      return [g.value];
    case 'ner':
      return [];
  }
}

/** The axis-aligned bounds of a geometry, for hit tests and "zoom to object". */
export function bounds(g: Geometry): BoxGeometry | null {
  const pts = outline(g);
  if (pts.length === 0) return null;
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/** Is a drawn shape big enough to keep (a click is not a box)? Sizes in image pixels. */
export function isDegenerate(g: Geometry, minSize: number): boolean {
  switch (g.kind) {
    case 'bounding-box':
    case 'rotated-bounding-box':
      return g.value.width < minSize || g.value.height < minSize;
    case 'polygon':
      return g.value.length < 3;
    case 'polyline':
      return g.value.length < 2;
    case 'point':
      return false;
    case 'ner':
      return g.value.end <= g.value.start;
  }
}

/** Ray casting: is `p` inside the polygon? */
export function pointInPolygon([px, py]: Vec, poly: Vec[]): boolean {
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

/** The area enclosed by a closed outline (shoelace formula), in square image pixels. */
function polygonArea(pts: Vec[]): number {
  let twice = 0;
  for (let i = 0; i < pts.length; i++) {
    const [ax, ay] = pts[i] as Vec;
    const [bx, by] = pts[(i + 1) % pts.length] as Vec;
    twice += ax * by - bx * ay;
  }
  return Math.abs(twice) / 2;
}

/**
 * How a click at `p` lands on the geometry, or undefined when it misses: `edge` when it is within
 * `tolerance` of a point, a vertex or an outline (with the distance), otherwise `inside` a box or
 * a polygon (with the area it encloses). All in image pixels.
 */
function hitOf(g: Geometry, p: Vec, tolerance: number): { edge: boolean; measure: number } | undefined {
  if (g.kind === 'ner') return undefined;
  if (g.kind === 'point') {
    const d = Math.hypot(p[0] - g.value[0], p[1] - g.value[1]);
    return d <= tolerance ? { edge: true, measure: d } : undefined;
  }
  const pts = outline(g);
  const closed = g.kind !== 'polyline';
  let nearest = Infinity;
  for (let i = 0; i + 1 < pts.length + (closed ? 1 : 0); i++) {
    nearest = Math.min(nearest, segmentDistance(p, pts[i] as Vec, pts[(i + 1) % pts.length] as Vec));
  }
  if (nearest <= tolerance) return { edge: true, measure: nearest };
  if (closed && pointInPolygon(p, pts)) return { edge: false, measure: polygonArea(pts) };
  return undefined;
}

/**
 * The object a click at `p` picks. Fills are translucent, so every outline under the pointer is
 * visible and "the one on top" means little to the person clicking; instead, as in CVAT, the most
 * precise hit wins: a point, vertex or outline within `tolerance` (the nearest) before any
 * interior, and among interiors the smallest area, so an object drawn inside a bigger one can
 * always be picked and the bigger one is picked anywhere else. Ties go to the last drawn.
 */
export function hitObject<T extends { geometry: Geometry }>(
  objects: readonly T[],
  p: Vec,
  tolerance: number,
): T | undefined {
  let best: { object: T; edge: boolean; measure: number } | undefined;
  for (const object of objects) {
    const hit = hitOf(object.geometry, p, tolerance);
    if (!hit) continue;
    const better = !best || (hit.edge && !best.edge) || (hit.edge === best.edge && hit.measure <= best.measure);
    if (better) best = { object, ...hit };
  }
  return best?.object;
}
