/*
 * Cuboids of the lidar frame: a centre, dimensions (length along the heading, width, height, in
 * metres) and a yaw in radians about +z. Oriented-box overlap and 3D IoU are exact: the
 * intersection of the two ground-plane rectangles (convex polygon clipping) times the overlap of
 * their height ranges. Shared by the server (overlap rules, consensus scores) and the editor.
 */

export interface Cuboid {
  center: { x: number; y: number; z: number };
  dimensions: { length: number; width: number; height: number };
  yaw: number;
}

type P2 = [number, number];

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Why `v` is not a cuboid (finite numbers, positive dimensions), or undefined when it is one. */
export function cuboidProblem(v: unknown): string | undefined {
  const shape = 'must be {center: {x, y, z}, dimensions: {length, width, height}, yaw} of finite numbers';
  if (!isRecord(v) || !isRecord(v.center) || !isRecord(v.dimensions) || !isNum(v.yaw)) return shape;
  const c = v.center;
  const d = v.dimensions;
  if (![c.x, c.y, c.z, d.length, d.width, d.height].every(isNum)) return shape;
  if (!((d.length as number) > 0 && (d.width as number) > 0 && (d.height as number) > 0)) {
    return 'dimensions.length, width and height must be greater than 0';
  }
  return undefined;
}

/** The four ground-plane corners, counter-clockwise. */
export function groundCorners(c: Cuboid): P2[] {
  const cos = Math.cos(c.yaw);
  const sin = Math.sin(c.yaw);
  const l = c.dimensions.length / 2;
  const w = c.dimensions.width / 2;
  return (
    [
      [l, w],
      [-l, w],
      [-l, -w],
      [l, -w],
    ] as P2[]
  ).map(([u, v]) => [c.center.x + u * cos - v * sin, c.center.y + u * sin + v * cos]);
}

function area(poly: P2[]): number {
  let s = 0;
  for (let i = 0; i < poly.length; i++) {
    const [x1, y1] = poly[i] as P2;
    const [x2, y2] = poly[(i + 1) % poly.length] as P2;
    s += x1 * y2 - x2 * y1;
  }
  return Math.abs(s) / 2;
}

/** The intersection of two convex counter-clockwise polygons (Sutherland-Hodgman). */
function clip(subject: P2[], by: P2[]): P2[] {
  let out = subject;
  for (let i = 0; i < by.length && out.length; i++) {
    const [ax, ay] = by[i] as P2;
    const [bx, by2] = by[(i + 1) % by.length] as P2;
    const side = (p: P2) => (bx - ax) * (p[1] - ay) - (by2 - ay) * (p[0] - ax);
    const input = out;
    out = [];
    for (let k = 0; k < input.length; k++) {
      const p = input[k] as P2;
      const q = input[(k + 1) % input.length] as P2;
      const sp = side(p);
      const sq = side(q);
      if (sp >= 0) out.push(p);
      if (sp >= 0 !== sq >= 0) {
        const t = sp / (sp - sq);
        out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
      }
    }
  }
  return out;
}

/** The volume two cuboids share, in cubic metres. */
export function intersectionVolume(a: Cuboid, b: Cuboid): number {
  const bottom = Math.max(a.center.z - a.dimensions.height / 2, b.center.z - b.dimensions.height / 2);
  const top = Math.min(a.center.z + a.dimensions.height / 2, b.center.z + b.dimensions.height / 2);
  if (top <= bottom) return 0;
  const ground = clip(groundCorners(a), groundCorners(b));
  return ground.length < 3 ? 0 : area(ground) * (top - bottom);
}

export const volumeOf = (c: Cuboid) => c.dimensions.length * c.dimensions.width * c.dimensions.height;

/** 3D intersection over union of two oriented cuboids, 0 to 1. */
export function cuboidIoU(a: Cuboid, b: Cuboid): number {
  const inter = intersectionVolume(a, b);
  const union = volumeOf(a) + volumeOf(b) - inter;
  return union > 0 ? Math.min(1, inter / union) : 0;
}

/** Cuboids that merely touch (shared volume under a cubic centimetre) do not overlap. */
export const OVERLAP_EPSILON_M3 = 1e-6;

export function cuboidsOverlap(a: Cuboid, b: Cuboid): boolean {
  return intersectionVolume(a, b) > OVERLAP_EPSILON_M3;
}

/** An angle brought into (-pi, pi]. */
export function wrapAngle(a: number): number {
  const t = (((a + Math.PI) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
  return t === 0 ? Math.PI : t - Math.PI;
}

/** The cuboid a fraction `t` (0 to 1) of the way from `a` to `b`: centre and dimensions linear, yaw along the shortest arc. */
export function interpolateCuboid(a: Cuboid, b: Cuboid, t: number): Cuboid {
  const mix = (x: number, y: number) => x + (y - x) * t;
  return {
    center: { x: mix(a.center.x, b.center.x), y: mix(a.center.y, b.center.y), z: mix(a.center.z, b.center.z) },
    dimensions: {
      length: mix(a.dimensions.length, b.dimensions.length),
      width: mix(a.dimensions.width, b.dimensions.width),
      height: mix(a.dimensions.height, b.dimensions.height),
    },
    yaw: wrapAngle(a.yaw + wrapAngle(b.yaw - a.yaw) * t),
  };
}

/** The eight corners: the footprint at the bottom, then at the top. */
export function corners(c: Cuboid): { x: number; y: number; z: number }[] {
  const lo = c.center.z - c.dimensions.height / 2;
  const hi = c.center.z + c.dimensions.height / 2;
  const f = groundCorners(c);
  return [...f.map(([x, y]) => ({ x, y, z: lo })), ...f.map(([x, y]) => ({ x, y, z: hi }))];
}

/** The twelve edges as pairs of corner indexes. */
export const EDGES: [number, number][] = [
  [0, 1],
  [1, 2],
  [2, 3],
  [3, 0],
  [4, 5],
  [5, 6],
  [6, 7],
  [7, 4],
  [0, 4],
  [1, 5],
  [2, 6],
  [3, 7],
];

/** True when a ground point lies inside the cuboid's footprint. */
export function containsGround(c: Cuboid, x: number, y: number): boolean {
  const dx = x - c.center.x;
  const dy = y - c.center.y;
  const cos = Math.cos(c.yaw);
  const sin = Math.sin(c.yaw);
  const u = dx * cos + dy * sin;
  const v = -dx * sin + dy * cos;
  return Math.abs(u) <= c.dimensions.length / 2 && Math.abs(v) <= c.dimensions.width / 2;
}

function hull(points: P2[]): P2[] {
  const pts = [...points].sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  if (pts.length < 3) return pts;
  const cross = (o: P2, a: P2, b: P2) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: P2[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: P2[] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i] as P2;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  return [...lower.slice(0, -1), ...upper.slice(0, -1)];
}

/**
 * The smallest rectangle around ground points (rotating calipers over the convex hull): its
 * heading (along its longer side), centre and sides.
 */
export function minAreaRect(points: P2[]): { yaw: number; cx: number; cy: number; length: number; width: number } {
  const h = hull(points);
  let best = { area: Infinity, yaw: 0, cx: 0, cy: 0, length: 0, width: 0 };
  const edges = h.length < 2 ? 1 : h.length;
  for (let i = 0; i < edges; i++) {
    const p = h[i] ?? [0, 0];
    const q = h[(i + 1) % h.length] ?? [1, 0];
    const angle = h.length < 2 ? 0 : Math.atan2(q[1] - p[1], q[0] - p[0]);
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    let minU = Infinity;
    let maxU = -Infinity;
    let minV = Infinity;
    let maxV = -Infinity;
    for (const [x, y] of h) {
      const u = x * cos + y * sin;
      const v = -x * sin + y * cos;
      minU = Math.min(minU, u);
      maxU = Math.max(maxU, u);
      minV = Math.min(minV, v);
      maxV = Math.max(maxV, v);
    }
    const area = (maxU - minU) * (maxV - minV);
    if (area < best.area - 1e-9) {
      const mu = (minU + maxU) / 2;
      const mv = (minV + maxV) / 2;
      const cx = mu * cos - mv * sin;
      const cy = mu * sin + mv * cos;
      const [length, width, yaw] =
        maxU - minU >= maxV - minV
          ? [maxU - minU, maxV - minV, angle]
          : [maxV - minV, maxU - minU, angle + Math.PI / 2];
      best = { area, yaw, cx, cy, length, width };
    }
  }
  // A heading between -90 and 90 degrees: a box has no front until someone turns it.
  let yaw = wrapAngle(best.yaw);
  if (yaw > Math.PI / 2) yaw -= Math.PI;
  if (yaw <= -Math.PI / 2) yaw += Math.PI;
  return { yaw, cx: best.cx, cy: best.cy, length: best.length, width: best.width };
}

export interface FitOptions {
  /** How far from the spot the object's points are looked for (metres). */
  radius?: number;
  /** Points this far above the ground belong to objects (metres). */
  groundClearance?: number;
  /** Two points of one object are at most this far apart on the ground (metres). */
  gap?: number;
  /** Dimensions to keep (preset): the fit then finds the centre and the heading only. */
  preset?: Partial<Cuboid['dimensions']>;
}

/** The ground's height near a spot: a low percentile of the points' heights around it. */
export function groundHeight(positions: Float32Array, x: number, y: number, radius = 4): number {
  const zs: number[] = [];
  const r2 = radius * radius;
  for (let i = 0; i < positions.length; i += 3) {
    const dx = (positions[i] as number) - x;
    const dy = (positions[i + 1] as number) - y;
    if (dx * dx + dy * dy <= r2) zs.push(positions[i + 2] as number);
  }
  if (zs.length === 0) return 0;
  zs.sort((a, b) => a - b);
  return zs[Math.floor(zs.length * 0.05)] as number;
}

/**
 * A cuboid fitted to the object at a spot of the ground: the ground is taken away (points near
 * its height), the object's points are those joined to the one nearest the spot by gaps smaller
 * than `gap`, its heading and extents are their smallest enclosing rectangle, its height from
 * the ground to the highest point. Undefined when no object's point is near the spot.
 */
export function fitCuboid(positions: Float32Array, x: number, y: number, opts: FitOptions = {}): Cuboid | undefined {
  const radius = opts.radius ?? 4;
  const clearance = opts.groundClearance ?? 0.15;
  const gap = opts.gap ?? 0.4;
  const ground = groundHeight(positions, x, y, radius + 2);
  const r2 = radius * radius;
  const near: number[] = [];
  for (let i = 0; i < positions.length; i += 3) {
    const dx = (positions[i] as number) - x;
    const dy = (positions[i + 1] as number) - y;
    if (dx * dx + dy * dy <= r2 && (positions[i + 2] as number) > ground + clearance) near.push(i);
  }
  if (near.length === 0) return undefined;
  // A grid of cells `gap` wide: neighbours are looked for in the 9 cells around.
  const cells = new Map<string, number[]>();
  const key = (cx: number, cy: number) => `${cx},${cy}`;
  for (const i of near) {
    const k = key(Math.floor((positions[i] as number) / gap), Math.floor((positions[i + 1] as number) / gap));
    const list = cells.get(k);
    if (list) list.push(i);
    else cells.set(k, [i]);
  }
  let seed = near[0] as number;
  let bestD = Infinity;
  for (const i of near) {
    const d = ((positions[i] as number) - x) ** 2 + ((positions[i + 1] as number) - y) ** 2;
    if (d < bestD) {
      bestD = d;
      seed = i;
    }
  }
  const taken = new Set<number>([seed]);
  const queue = [seed];
  const g2 = gap * gap;
  while (queue.length > 0) {
    const i = queue.pop() as number;
    const px = positions[i] as number;
    const py = positions[i + 1] as number;
    const gx = Math.floor(px / gap);
    const gy = Math.floor(py / gap);
    for (let ox = -1; ox <= 1; ox++) {
      for (let oy = -1; oy <= 1; oy++) {
        for (const j of cells.get(key(gx + ox, gy + oy)) ?? []) {
          if (taken.has(j)) continue;
          const d = ((positions[j] as number) - px) ** 2 + ((positions[j + 1] as number) - py) ** 2;
          if (d <= g2) {
            taken.add(j);
            queue.push(j);
          }
        }
      }
    }
  }
  const ground2: P2[] = [];
  let top = -Infinity;
  for (const i of taken) {
    ground2.push([positions[i] as number, positions[i + 1] as number]);
    top = Math.max(top, positions[i + 2] as number);
  }
  const rect = minAreaRect(ground2);
  const height = opts.preset?.height ?? Math.max(0.1, top - ground);
  return {
    center: { x: rect.cx, y: rect.cy, z: ground + height / 2 },
    dimensions: {
      length: opts.preset?.length ?? Math.max(0.1, rect.length),
      width: opts.preset?.width ?? Math.max(0.1, rect.width),
      height,
    },
    yaw: rect.yaw,
  };
}
