import polygonClipping, { type Polygon, type Ring } from 'polygon-clipping';
import { type Cuboid, cuboidIoU, cuboidProblem, groundCorners } from '../../shared/pointcloud/cuboid.js';
import { expandTrack, objectKey, pageOf, type WireEntry, wireTracks } from '../../shared/tracks.js';
import { multiPolygonArea } from '../zones.js';
import {
  boxIoU,
  preparePolygon,
  preparedPolygonIoU,
  rotatedBoxCorners,
  type Box,
  type PreparedPolygon,
  type Pt,
  type RotatedBox,
} from './geometry.js';

/**
 * How alike two objects of one tool are, from 0 (nothing shared) to 1 (the same): the one
 * measure of each tool kind that consensus agreement, adjudication and benchmark scores share.
 * - boxes, rotated boxes and polygons: IoU;
 * - segmentation zones: IoU of their areas, holes cut out;
 * - points: 1 - distance / POINT_MATCH_DISTANCE;
 * - polylines: the same of the mean distance of each line's vertices to the other line;
 * - NER spans ({start, end}, end exclusive): shared characters over the characters either covers;
 * - point clouds (`pct`): cuboids by 3D IoU (oriented boxes, exact: shared/pointcloud/cuboid.ts);
 *   a pct tool's other shapes (3D polygons and polylines, shapes on camera images) are not scored.
 * Objects on different frames or pages (`page`) share nothing; a malformed object matches nothing.
 * Other kinds (brushes, PDF marks, angles) have no measure: undefined.
 *
 * Matching prepares each object once (its geometry and bounding box) and compares only pairs
 * whose boxes come within reach of each other, so a few hundred objects a side stay cheap.
 */

/** Points (and polyline vertices) further apart than this, in the medium's pixels, do not match. */
export const POINT_MATCH_DISTANCE = 20;

type Rec = Record<string, unknown>;
type Xy = [number, number];
type Bounds = [number, number, number, number];

interface Prepared<G> {
  page: number;
  bounds: Bounds;
  geometry: G;
}

interface KindMeasure<G> {
  /** The object's geometry and its bounding box, or undefined when malformed. */
  prepare(o: Rec): { geometry: G; bounds: Bounds } | undefined;
  /** How far apart two bounding boxes may be and the objects still share something. */
  reach: number;
  compare(a: G, b: G): number;
  /** Which of the tool's objects the measure compares, when not all: the others are not scored. */
  applies?(o: Rec): boolean;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A point as the API keeps it (`[x, y]`), or as `{x, y}`. */
function xyOf(v: unknown): Xy | undefined {
  if (Array.isArray(v) && isNum(v[0]) && isNum(v[1])) return [v[0], v[1]];
  return isRec(v) && isNum(v.x) && isNum(v.y) ? [v.x, v.y] : undefined;
}

function pointsOf(v: unknown, min: number): Xy[] | undefined {
  if (!Array.isArray(v) || v.length < min) return undefined;
  const pts = v.map(xyOf);
  return pts.every((p) => p !== undefined) ? (pts as Xy[]) : undefined;
}

function boundsOf(points: readonly Pt[]): Bounds {
  let [x1, y1, x2, y2] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of points) {
    if (x < x1) x1 = x;
    if (x > x2) x2 = x;
    if (y < y1) y1 = y;
    if (y > y2) y2 = y;
  }
  return [x1, y1, x2, y2];
}

function hasNums(v: unknown, keys: readonly string[]): v is Rec {
  return isRec(v) && keys.every((k) => isNum(v[k]));
}

/** Distance from a point to the nearest segment of a polyline. */
function distanceToLine([px, py]: Xy, line: readonly Xy[]): number {
  let best = Infinity;
  for (let i = 1; i < line.length; i++) {
    const [ax, ay] = line[i - 1] as Xy;
    const [bx, by] = line[i] as Xy;
    const [dx, dy] = [bx - ax, by - ay];
    const len = dx * dx + dy * dy;
    const t = len === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len));
    best = Math.min(best, Math.hypot(px - (ax + t * dx), py - (ay + t * dy)));
  }
  return best;
}

const box: KindMeasure<Box> = {
  prepare(o) {
    const g = o['bounding-box'];
    if (!hasNums(g, ['x', 'y', 'width', 'height'])) return undefined;
    const b = { x: g.x as number, y: g.y as number, width: g.width as number, height: g.height as number };
    return {
      geometry: b,
      bounds: boundsOf([
        [b.x, b.y],
        [b.x + b.width, b.y + b.height],
      ]),
    };
  },
  reach: 0,
  compare: boxIoU,
};

/** Polygons and rotated boxes (by their corners) compare as polygons, by IoU. */
function outline(read: (o: Rec) => Pt[] | undefined): KindMeasure<PreparedPolygon> {
  return {
    prepare(o) {
      const pts = read(o);
      return pts ? { geometry: preparePolygon(pts), bounds: boundsOf(pts) } : undefined;
    },
    reach: 0,
    compare: preparedPolygonIoU,
  };
}

const rotated = outline((o) => {
  const g = o['rotated-bounding-box'];
  if (!hasNums(g, ['x', 'y', 'width', 'height', 'rotation'])) return undefined;
  return rotatedBoxCorners(g as unknown as RotatedBox);
});

const polygon = outline((o) => pointsOf(o.polygon, 3));

const point: KindMeasure<Xy> = {
  prepare(o) {
    const p = xyOf(o.point);
    return p ? { geometry: p, bounds: [p[0], p[1], p[0], p[1]] } : undefined;
  },
  reach: POINT_MATCH_DISTANCE,
  compare: (a, b) => Math.max(0, 1 - Math.hypot(a[0] - b[0], a[1] - b[1]) / POINT_MATCH_DISTANCE),
};

/** Polylines: the same line drawn with other vertices still scores 1. */
const polyline: KindMeasure<Xy[]> = {
  prepare(o) {
    const line = pointsOf(o.polyline, 2);
    return line ? { geometry: line, bounds: boundsOf(line) } : undefined;
  },
  reach: POINT_MATCH_DISTANCE,
  compare(a, b) {
    let sum = 0;
    for (const p of a) sum += distanceToLine(p, b);
    for (const p of b) sum += distanceToLine(p, a);
    return Math.max(0, 1 - sum / (a.length + b.length) / POINT_MATCH_DISTANCE);
  },
};

interface Zones {
  polygons: Polygon[];
  area: number;
}

/** Segmentation: the zones of one object never overlap, so its area is the sum of theirs. */
const segmentation: KindMeasure<Zones> = {
  prepare(o) {
    const zones = isRec(o.segmentation) ? o.segmentation.zones : undefined;
    if (!Array.isArray(zones) || zones.length === 0) return undefined;
    const polygons: Polygon[] = [];
    for (const z of zones) {
      if (!isRec(z)) return undefined;
      const rings = [z.region, ...(Array.isArray(z.holes) ? z.holes : [])].map((r) => pointsOf(r, 3));
      if (rings.some((r) => r === undefined)) return undefined;
      polygons.push(rings as Ring[]);
    }
    const outer = polygons.flatMap((p) => p[0] as Pt[]);
    return { geometry: { polygons, area: multiPolygonArea(polygons) }, bounds: boundsOf(outer) };
  },
  reach: 0,
  compare(a, b) {
    const shared = multiPolygonArea(polygonClipping.intersection(a.polygons, b.polygons));
    const union = a.area + b.area - shared;
    return union > 0 ? Math.min(1, Math.max(0, shared / union)) : 0;
  },
};

/** NER spans lie on one line of characters: their bounds are [start, 0, end, 0]. */
const ner: KindMeasure<{ start: number; end: number }> = {
  prepare(o) {
    const s = o.ner;
    if (!hasNums(s, ['start', 'end'])) return undefined;
    const [start, end] = [s.start as number, s.end as number];
    return { geometry: { start, end }, bounds: [start, 0, end, 0] };
  },
  reach: 0,
  compare(a, b) {
    if (a.start === b.start && a.end === b.end) return 1;
    const shared = Math.min(a.end, b.end) - Math.max(a.start, b.start);
    const covered = Math.max(a.end, b.end) - Math.min(a.start, b.start);
    return shared > 0 && covered > 0 ? shared / covered : 0;
  },
};

/** A point cloud's cuboids: 3D IoU; bounds are the footprint's on the ground (x, y). */
const cuboid: KindMeasure<Cuboid> = {
  applies: (o) => o.markingTool === 'cuboid',
  prepare(o) {
    if (cuboidProblem(o.cuboid) !== undefined) return undefined;
    const c = o.cuboid as Cuboid;
    return { geometry: c, bounds: boundsOf(groundCorners(c)) };
  },
  reach: 0,
  compare: cuboidIoU,
};

const MEASURES: Record<string, KindMeasure<unknown>> = {
  'bounding-box': box,
  'rotated-bounding-box': rotated,
  polygon,
  point,
  polyline,
  segmentation,
  ner,
  pct: cuboid,
};

/** The tool kinds objects are compared by (see the file comment). */
export const SCORED_TOOL_KINDS = Object.keys(MEASURES);

export function isScoredKind(kind: string | undefined): boolean {
  return kind !== undefined && Object.hasOwn(MEASURES, kind);
}

const measureOf = (kind: string | undefined) =>
  kind !== undefined && Object.hasOwn(MEASURES, kind) ? MEASURES[kind] : undefined;

const applies = (measure: KindMeasure<unknown>, o: unknown) => !measure.applies || (isRec(o) && measure.applies(o));

/**
 * The objects of one ontology tool (`schemaId`, of kind `kind`) in a list of answer entries that
 * its kind's measure compares: all of them but a pct tool's shapes other than cuboids.
 */
export function scoredObjects(kind: string | undefined, schemaId: string, tools: readonly Rec[]): Rec[] {
  const measure = measureOf(kind);
  return tools.filter((o) => o.schemaId === schemaId && (!measure || applies(measure, o)));
}

function prepare(measure: KindMeasure<unknown>, o: unknown): Prepared<unknown> | undefined {
  if (!isRec(o) || !applies(measure, o)) return undefined;
  const got = measure.prepare(o);
  return got && { ...got, page: isNum(o.page) ? o.page : 0 };
}

function compare(measure: KindMeasure<unknown>, a: Prepared<unknown> | undefined, b: Prepared<unknown> | undefined) {
  if (!a || !b || a.page !== b.page) return 0;
  const r = measure.reach;
  const [ab, bb] = [a.bounds, b.bounds];
  if (ab[0] - r > bb[2] || bb[0] - r > ab[2] || ab[1] - r > bb[3] || bb[1] - r > ab[3]) return 0;
  return measure.compare(a.geometry, b.geometry);
}

/**
 * How alike two objects of a tool of this kind are, 0 to 1; undefined for kinds without a measure
 * and for two objects the measure does not compare (a pct tool's polygons).
 */
export function objectSimilarity(kind: string | undefined, a: unknown, b: unknown): number | undefined {
  const measure = measureOf(kind);
  if (!measure || (!applies(measure, a) && !applies(measure, b))) return undefined;
  return compare(measure, prepare(measure, a), prepare(measure, b));
}

export interface Match {
  i: number;
  j: number;
  similarity: number;
}

/** One-to-one matching of `a` to `b`, highest similarity first (ties: lower indexes first). */
export function bestMatch<T>(a: readonly T[], b: readonly T[], similarity: (x: T, y: T) => number): Match[] {
  const all: Match[] = [];
  a.forEach((x, i) =>
    b.forEach((y, j) => {
      const s = similarity(x, y);
      if (s > 0) all.push({ i, j, similarity: s });
    }),
  );
  return greedy(all);
}

function greedy(all: Match[]): Match[] {
  all.sort((p, q) => q.similarity - p.similarity || p.i - q.i || p.j - q.j);
  const [usedA, usedB] = [new Set<number>(), new Set<number>()];
  const out: Match[] = [];
  for (const m of all) {
    if (usedA.has(m.i) || usedB.has(m.j)) continue;
    usedA.add(m.i);
    usedB.add(m.j);
    out.push(m);
  }
  return out;
}

/**
 * Best one-to-one matching of two lists of objects of one tool by its kind's measure, each
 * object prepared once; undefined for kinds without a measure.
 */
export function matchObjects(kind: string | undefined, a: readonly unknown[], b: readonly unknown[]) {
  const measure = measureOf(kind);
  if (!measure) return undefined;
  const pa = a.map((o) => prepare(measure, o));
  const pb = b.map((o) => prepare(measure, o));
  const all: Match[] = [];
  const near = nearby(pb, measure.reach);
  pa.forEach((x, i) => {
    if (!x) return;
    for (const j of near(x.bounds)) {
      const s = compare(measure, x, pb[j]);
      if (s > 0) all.push({ i, j, similarity: s });
    }
  });
  return greedy(all);
}

/** A margin wider than any rounding of the bounds arithmetic, so the search never leaves a pair out. */
const slack = (x: number) => 1 + Math.abs(x) * 1e-9;

/**
 * The indexes of the prepared objects whose bounding boxes may come within `reach` of a box, by
 * binary search over the objects sorted by left edge: a pair left out could only score 0, and
 * `compare` still checks each pair found, so results are those of comparing every pair.
 */
function nearby(list: readonly (Prepared<unknown> | undefined)[], reach: number) {
  const order = list.flatMap((p, j) => (p ? [j] : []));
  const left = (j: number) => (list[j] as Prepared<unknown>).bounds[0];
  order.sort((p, q) => left(p) - left(q));
  const lefts = order.map(left);
  const widest = order.reduce((w, j) => Math.max(w, (list[j] as Prepared<unknown>).bounds[2] - left(j)), 0);
  /** First position whose left edge is at least `x`. */
  const from = (x: number) => {
    let [lo, hi] = [0, lefts.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((lefts[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return (b: Bounds) => {
    const [lo, hi] = [b[0] - reach - widest, b[2] + reach];
    return order.slice(from(lo - slack(lo)), from(hi + slack(hi)));
  };
}

/** A track's frames shown (stop entries and the frames after them left out), each object prepared once. */
function trackFrames(measure: KindMeasure<unknown>, entries: readonly WireEntry[], lastFrame: number) {
  const frames = new Map<number, Prepared<unknown> | undefined>();
  for (const e of expandTrack(entries, lastFrame)) {
    if (e.interpolationStopped !== true) frames.set(pageOf(e) as number, prepare(measure, e));
  }
  return frames;
}

/**
 * Best one-to-one matching of two video answers' tracks of one tool (entries grouped by
 * `objectId`, keyframes expanded to every frame up to `lastFrame` as exports expand them): two
 * tracks are as alike as the mean, over the frames either shows, of their objects' similarity on
 * each frame (a frame only one shows counts 0). An entry without `page` is a track from frame
 * 0. Answers the matches and each track's objectId; undefined for kinds without a measure.
 */
export function matchTracks(
  kind: string | undefined,
  a: readonly unknown[],
  b: readonly unknown[],
  lastFrame: number,
): ToolMatch | undefined {
  const measure = measureOf(kind);
  if (!measure) return undefined;
  const tracksOf = (list: readonly unknown[]) => {
    const entries = list.filter(isRec).map((e) => (pageOf(e) === undefined ? { ...e, page: 0 } : e));
    return wireTracks(entries, objectKey).tracks;
  };
  const [ta, tb] = [tracksOf(a), tracksOf(b)];
  const frames = (tracks: typeof ta) => tracks.map((t) => trackFrames(measure, t.entries, lastFrame));
  const matches = bestMatch(frames(ta), frames(tb), (x, y) => {
    let shared = 0;
    let either = x.size;
    for (const [frame, py] of y) {
      if (!x.has(frame)) either += 1;
      else shared += compare(measure, x.get(frame), py);
    }
    return either === 0 ? 0 : shared / either;
  });
  const ids = (tracks: typeof ta) => tracks.map((t) => t.entries[0]?.objectId);
  return { matches, a: ids(ta), b: ids(tb) };
}

/** Two lists' objects (or tracks) matched one to one, with the objectId of each object or track. */
export interface ToolMatch {
  matches: Match[];
  a: unknown[];
  b: unknown[];
}

/**
 * The objects of one tool in two answers matched one to one by its kind's measure; on a video or
 * a point-cloud sequence (`lastFrame` given), its tracks. Undefined for kinds without a measure.
 */
export function matchTool(
  kind: string | undefined,
  a: readonly Rec[],
  b: readonly Rec[],
  lastFrame?: number,
): ToolMatch | undefined {
  if (lastFrame !== undefined) return matchTracks(kind, a, b, lastFrame);
  const matches = matchObjects(kind, a, b);
  return matches && { matches, a: a.map((o) => o.objectId), b: b.map((o) => o.objectId) };
}

/** The matched similarities of two object lists summed over the larger count (1 when both are empty). */
export function matchedShare(matches: readonly Match[], a: number, b: number): number {
  const larger = Math.max(a, b);
  return larger === 0 ? 1 : matches.reduce((s, m) => s + m.similarity, 0) / larger;
}

/**
 * A brush layer read as class numbers: one byte per pixel, row-major, 0 unpainted, k the k-th
 * brush tool of the ontology (1-based), by the colour each pixel was painted in.
 */
export interface BrushClasses {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * How alike two brush layers are for one brush class: IoU of the pixels painted in that class
 * (pixels compared by position; a missing layer paints nothing). 1 when neither paints the class.
 */
export function brushClassIoU(a: BrushClasses | undefined, b: BrushClasses | undefined, value: number): number {
  const count = (l: BrushClasses | undefined) => {
    let n = 0;
    if (l) for (const v of l.data) if (v === value) n += 1;
    return n;
  };
  const [inA, inB] = [count(a), count(b)];
  if (inA + inB === 0) return 1;
  let both = 0;
  if (a && b) {
    const [w, h] = [Math.min(a.width, b.width), Math.min(a.height, b.height)];
    for (let y = 0; y < h; y += 1) {
      const [ra, rb] = [y * a.width, y * b.width];
      for (let x = 0; x < w; x += 1) if (a.data[ra + x] === value && b.data[rb + x] === value) both += 1;
    }
  }
  return both / (inA + inB - both);
}

/** Whether a layer paints this class at all. */
export function paintsClass(layer: BrushClasses | undefined, value: number): boolean {
  return layer !== undefined && layer.data.includes(value);
}
