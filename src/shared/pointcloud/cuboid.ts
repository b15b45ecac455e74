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
