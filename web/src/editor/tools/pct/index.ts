import type { Cuboid } from '../../../../../src/shared/pointcloud/cuboid';
import { containsGround } from '../../../../../src/shared/pointcloud/cuboid';
import type { Tool } from '../../core/tool';

/** The marking tools of a point cloud (the ontology tool's `markingTools`). */
export const MARKING_TOOLS = ['cuboid', 'polygon', 'polyline', 'rectangle', 'polygon2d', 'polyline2d'] as const;
export type MarkingTool = (typeof MARKING_TOOLS)[number];

export type Point3 = { x: number; y: number; z: number };

/**
 * A point cloud's object: a cuboid (metres, in the LiDAR frame), a 3D polygon or polyline
 * (`points` of {x, y, z}), or, on a camera's image (`sensor`), a rectangle (`box`, pixels) or a
 * 2D polygon or polyline (`points` of [x, y] pixels).
 */
export interface PctValue {
  markingTool: MarkingTool;
  cuboid?: Cuboid;
  points?: Point3[] | [number, number][];
  sensor?: string;
  box?: { x: number; y: number; width: number; height: number };
}

declare module '../../core/answer' {
  interface GeometryKinds {
    pct: PctValue;
  }
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isRec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isPoint3 = (v: unknown): v is Point3 => isRec(v) && isNum(v.x) && isNum(v.y) && isNum(v.z);
const isPoint2 = (v: unknown): v is [number, number] =>
  Array.isArray(v) && v.length === 2 && isNum(v[0]) && isNum(v[1]);

function readCuboid(v: unknown): Cuboid | null {
  if (!isRec(v) || !isRec(v.center) || !isRec(v.dimensions) || !isNum(v.yaw)) return null;
  const { center: c, dimensions: d } = v;
  if (!isNum(c.x) || !isNum(c.y) || !isNum(c.z) || !isNum(d.length) || !isNum(d.width) || !isNum(d.height)) return null;
  return {
    center: { x: c.x, y: c.y, z: c.z },
    dimensions: { length: d.length, width: d.width, height: d.height },
    yaw: v.yaw,
  };
}

/** Whether a value is drawn on a camera's image (pixels) rather than in the cloud (metres). */
export function onImage(v: PctValue): boolean {
  return v.markingTool === 'rectangle' || v.markingTool === 'polygon2d' || v.markingTool === 'polyline2d';
}

type Drawing = { from: [number, number, number]; to: [number, number, number] };

/** A cuboid spanning two ground corners, 1.5 m tall, standing on the first corner's height. */
function spanned(d: Drawing): PctValue {
  const [ax, ay, az] = d.from;
  const [bx, by] = d.to;
  return {
    markingTool: 'cuboid',
    cuboid: {
      center: { x: (ax + bx) / 2, y: (ay + by) / 2, z: az + 0.75 },
      dimensions: { length: Math.abs(bx - ax), width: Math.abs(by - ay), height: 1.5 },
      yaw: 0,
    },
  };
}

/**
 * The `pct` tool of a point cloud's ontology. Its value lies over several keys of the answer's
 * entry (`markingTool`, `cuboid`, `points`, `sensor`, `box`) rather than under one key.
 */
const pct: Tool<'pct', 'lidar', Drawing> = {
  kind: 'pct',
  name: 'Point cloud object',
  space: 'lidar',
  entryKeys: ['tool', 'markingTool', 'cuboid', 'points', 'sensor', 'box'],
  read(raw) {
    if (!isRec(raw) || !MARKING_TOOLS.includes(raw.markingTool as MarkingTool)) return null;
    const markingTool = raw.markingTool as MarkingTool;
    const sensor = typeof raw.sensor === 'string' ? { sensor: raw.sensor } : {};
    if (markingTool === 'cuboid') {
      const cuboid = readCuboid(raw.cuboid);
      return cuboid ? { markingTool, cuboid } : null;
    }
    if (markingTool === 'rectangle') {
      const b = raw.box;
      if (!isRec(b) || !isNum(b.x) || !isNum(b.y) || !isNum(b.width) || !isNum(b.height)) return null;
      return { markingTool, ...sensor, box: { x: b.x, y: b.y, width: b.width, height: b.height } };
    }
    if (!Array.isArray(raw.points)) return null;
    if (markingTool === 'polygon' || markingTool === 'polyline') {
      if (!raw.points.every(isPoint3)) return null;
      return { markingTool, points: raw.points.map((p) => ({ x: p.x, y: p.y, z: p.z })) };
    }
    if (!raw.points.every(isPoint2)) return null;
    return { markingTool, ...sensor, points: raw.points.map(([x, y]) => [x, y] as [number, number]) };
  },
  write(value) {
    return { tool: 'pct', ...value };
  },
  hit(value, [x, y], tolerance) {
    if (value.cuboid) {
      const { length, width } = value.cuboid.dimensions;
      return containsGround(value.cuboid, x, y) ? { edge: false, measure: length * width } : undefined;
    }
    if (value.box) {
      const b = value.box;
      const inside = x >= b.x && x <= b.x + b.width && y >= b.y && y <= b.y + b.height;
      return inside ? { edge: false, measure: b.width * b.height } : undefined;
    }
    let best: number | undefined;
    for (const p of value.points ?? []) {
      const [px, py] = Array.isArray(p) ? p : [p.x, p.y];
      const d = Math.hypot(px - x, py - y);
      if (d <= tolerance && (best === undefined || d < best)) best = d;
    }
    return best === undefined ? undefined : { edge: true, measure: best };
  },
  move(value, [dx, dy, dz]) {
    if (value.cuboid) {
      const c = value.cuboid.center;
      return { ...value, cuboid: { ...value.cuboid, center: { x: c.x + dx, y: c.y + dy, z: c.z + dz } } };
    }
    if (value.box) return { ...value, box: { ...value.box, x: value.box.x + dx, y: value.box.y + dy } };
    const points = (value.points ?? []).map((p) =>
      Array.isArray(p) ? ([p[0] + dx, p[1] + dy] as [number, number]) : { x: p.x + dx, y: p.y + dy, z: p.z + dz },
    );
    return { ...value, points } as PctValue;
  },
  degenerate(value, minSize) {
    if (value.cuboid) {
      const d = value.cuboid.dimensions;
      return d.length < minSize || d.width < minSize || d.height <= 0;
    }
    if (value.box) return value.box.width < minSize || value.box.height < minSize;
    const n = value.points?.length ?? 0;
    return value.markingTool === 'polygon' || value.markingTool === 'polygon2d' ? n < 3 : n < 2;
  },
  press(drawing, at) {
    return { drawing: drawing ?? { from: at, to: at } };
  },
  drag(drawing, at) {
    return { ...drawing, to: at };
  },
  release(drawing, at) {
    return { drawing: null, done: spanned({ ...drawing, to: at }) };
  },
};

export default pct;
