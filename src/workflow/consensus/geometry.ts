/**
 * Areas and intersection-over-union of the shapes consensus compares: axis-aligned boxes,
 * rotated boxes and polygons (convex or not). Pure functions, no tolerance games: the values
 * are exact up to floating point, so tests can use hand-computed numbers.
 */

export type Pt = readonly [number, number];

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface RotatedBox extends Box {
  /** Degrees, clockwise in image coordinates, about the box centre. */
  rotation: number;
}

/** Shoelace formula: positive when the vertices run counter-clockwise (y up). */
export function signedArea(poly: readonly Pt[]): number {
  let twice = 0;
  for (let i = 0; i < poly.length; i += 1) {
    const [x1, y1] = poly[i] as Pt;
    const [x2, y2] = poly[(i + 1) % poly.length] as Pt;
    twice += x1 * y2 - x2 * y1;
  }
  return twice / 2;
}

const cross = (o: Pt, a: Pt, b: Pt) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);

/** Where segment p-q crosses the line through a-b (the caller knows they cross). */
function crossing(p: Pt, q: Pt, a: Pt, b: Pt): Pt {
  const cp = cross(a, b, p);
  const cq = cross(a, b, q);
  const t = cp / (cp - cq);
  return [p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t];
}

/** Sutherland-Hodgman: `subject` clipped by the convex, counter-clockwise polygon `clip`. */
function clipConvex(subject: readonly Pt[], clip: readonly Pt[]): Pt[] {
  let out: Pt[] = [...subject];
  for (let i = 0; i < clip.length && out.length > 0; i += 1) {
    const a = clip[i] as Pt;
    const b = clip[(i + 1) % clip.length] as Pt;
    const input = out;
    out = [];
    for (let k = 0; k < input.length; k += 1) {
      const p = input[k] as Pt;
      const q = input[(k + 1) % input.length] as Pt;
      const pIn = cross(a, b, p) >= 0;
      const qIn = cross(a, b, q) >= 0;
      if (pIn) out.push(p);
      if (pIn !== qIn) out.push(crossing(p, q, a, b));
    }
  }
  return out;
}

const ccw = (poly: readonly Pt[]): Pt[] => (signedArea(poly) < 0 ? [...poly].reverse() : [...poly]);

/** Fan triangles from the first vertex, each with the sign of its orientation. */
function fan(poly: readonly Pt[]): { tri: Pt[]; sign: number }[] {
  const out: { tri: Pt[]; sign: number }[] = [];
  const o = poly[0] as Pt;
  for (let i = 1; i + 1 < poly.length; i += 1) {
    const tri: Pt[] = [o, poly[i] as Pt, poly[i + 1] as Pt];
    const area = signedArea(tri);
    if (area !== 0) out.push({ tri: area > 0 ? tri : [...tri].reverse(), sign: Math.sign(area) });
  }
  return out;
}

/**
 * Area of the intersection of two simple polygons, convex or not. A counter-clockwise polygon's
 * indicator equals the signed sum of its fan triangles' indicators (winding numbers add up), so
 * the intersection area is the signed sum of the pairwise triangle intersections, each of which
 * is convex and clipped exactly. Cost: (n - 2) x (m - 2) triangle clips.
 */
export function intersectionArea(a: readonly Pt[], b: readonly Pt[]): number {
  return preparedIntersection(preparePolygon(a), preparePolygon(b));
}

/** A polygon made ready for many intersections: its fan triangles and its area, computed once. */
export interface PreparedPolygon {
  fan: { tri: Pt[]; sign: number }[];
  area: number;
}

export function preparePolygon(poly: readonly Pt[]): PreparedPolygon {
  return { fan: poly.length < 3 ? [] : fan(ccw(poly)), area: Math.abs(signedArea(poly)) };
}

function preparedIntersection(a: PreparedPolygon, b: PreparedPolygon): number {
  let total = 0;
  for (const ta of a.fan) {
    for (const tb of b.fan) total += ta.sign * tb.sign * Math.abs(signedArea(clipConvex(ta.tri, tb.tri)));
  }
  return Math.max(0, total);
}

/** IoU of two prepared polygons: the same arithmetic as polygonIoU, without preparing again. */
export function preparedPolygonIoU(a: PreparedPolygon, b: PreparedPolygon): number {
  const inter = preparedIntersection(a, b);
  const union = a.area + b.area - inter;
  return union > 0 ? Math.min(1, inter / union) : 0;
}

/** IoU of two polygons; 0 when both are empty or degenerate. */
export function polygonIoU(a: readonly Pt[], b: readonly Pt[]): number {
  return preparedPolygonIoU(preparePolygon(a), preparePolygon(b));
}

/** IoU of two axis-aligned boxes {x, y, width, height}. */
export function boxIoU(a: Box, b: Box): number {
  const [ax1, ax2] = [Math.min(a.x, a.x + a.width), Math.max(a.x, a.x + a.width)];
  const [ay1, ay2] = [Math.min(a.y, a.y + a.height), Math.max(a.y, a.y + a.height)];
  const [bx1, bx2] = [Math.min(b.x, b.x + b.width), Math.max(b.x, b.x + b.width)];
  const [by1, by2] = [Math.min(b.y, b.y + b.height), Math.max(b.y, b.y + b.height)];
  const w = Math.max(0, Math.min(ax2, bx2) - Math.max(ax1, bx1));
  const h = Math.max(0, Math.min(ay2, by2) - Math.max(ay1, by1));
  const inter = w * h;
  const union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter;
  return union > 0 ? inter / union : 0;
}

/** Corners of a rotated box: (x, y) is the top-left corner before rotation about the centre. */
export function rotatedBoxCorners(b: RotatedBox): Pt[] {
  const cx = b.x + b.width / 2;
  const cy = b.y + b.height / 2;
  const rad = (b.rotation * Math.PI) / 180;
  const [cos, sin] = [Math.cos(rad), Math.sin(rad)];
  const half: Pt[] = [
    [-b.width / 2, -b.height / 2],
    [b.width / 2, -b.height / 2],
    [b.width / 2, b.height / 2],
    [-b.width / 2, b.height / 2],
  ];
  return half.map(([dx, dy]): Pt => [cx + dx * cos - dy * sin, cy + dx * sin + dy * cos]);
}

export function rotatedBoxIoU(a: RotatedBox, b: RotatedBox): number {
  return polygonIoU(rotatedBoxCorners(a), rotatedBoxCorners(b));
}
