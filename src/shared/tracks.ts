/*
 * Tracks: one object across a video's frames, set at keyframes and interpolated in between. The
 * one definition of what an object looks like on a frame, used by the editor (what it draws) and
 * by the server (exports, label imports, metrics, Logic conditions, consensus), so that a frame
 * exported is the frame the labeler saw. Pure functions without imports: the console and the
 * server both compile this file.
 *
 * On the wire each keyframe is one entry of the answer's `tools` with the track's `objectId`, its
 * `page` (the frame counted from 0) and `interpolationStopped: true` where the object leaves the
 * view; a later keyframe of the same objectId shows it again.
 */

/**
 * The tool kinds whose shape moves linearly between keyframes; any other holds the earlier one.
 * Segmentation zones move vertex by vertex when the two keyframes have the same zones, holes and
 * vertex counts (lerpValue); otherwise the earlier shape holds.
 */
export const INTERPOLATED_TOOLS: readonly string[] = [
  'bounding-box',
  'rotated-bounding-box',
  'point',
  'polyline',
  'polygon',
  'segmentation',
  'pct',
];

export function interpolates(kind: string): boolean {
  return INTERPOLATED_TOOLS.includes(kind);
}

/** An angle in radians `t` of the way from `a` to `b`, turning the shorter way round. */
export function lerpAngle(a: number, b: number, t: number): number {
  const turn = 2 * Math.PI;
  const d = ((((b - a + Math.PI) % turn) + turn) % turn) - Math.PI;
  return a + d * t;
}

/**
 * A value between two of the same structure: every number moves linearly (a box's corner and
 * size, a polygon's vertices), except a `yaw` (a cuboid's heading in radians), which turns the
 * shorter way round. Undefined when the structures differ (polygons with a different number of
 * vertices, a key present in one only).
 */
export function lerpValue(a: unknown, b: unknown, t: number): unknown {
  if (typeof a === 'number' && typeof b === 'number') return a + (b - a) * t;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return undefined;
    const out: unknown[] = new Array<unknown>(a.length);
    for (let i = 0; i < a.length; i++) {
      const v = lerpValue(a[i], b[i], t);
      if (v === undefined) return undefined;
      out[i] = v;
    }
    return out;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return undefined;
    const out: Record<string, unknown> = {};
    for (const k of keys) {
      const ak = (a as Record<string, unknown>)[k];
      const bk = (b as Record<string, unknown>)[k];
      if (k === 'yaw' && typeof ak === 'number' && typeof bk === 'number') {
        out[k] = lerpAngle(ak, bk, t);
        continue;
      }
      const v = lerpValue(ak, bk, t);
      if (v === undefined) return undefined;
      out[k] = v;
    }
    return out;
  }
  return a === b ? a : undefined;
}

/** `a` moved `t` of the way to `b` (0 to 1); `a` itself when the two cannot be blended. */
export function blend<V>(a: V, b: V, t: number): V {
  return (lerpValue(a, b, t) ?? a) as V;
}

export interface Keyframe<V> {
  /** The frame (or page) it is set on, from 0. */
  page: number;
  value: V;
  /** Out of view from here until the next keyframe (`interpolationStopped`). */
  hidden?: boolean;
}

/**
 * The index of the keyframe in force on a page (the last at or before it), or -1 before the
 * first. Keyframes are in page order.
 */
export function keyframeIndexAt(keyframes: readonly { page: number }[], page: number): number {
  let lo = 0;
  let hi = keyframes.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((keyframes[mid] as { page: number }).page <= page) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * A track's value on a page: a keyframe's own on a keyframe; between two, the earlier moved
 * towards the later (when `linear`, else the earlier held); after the last, the last's. Null
 * before the first keyframe and from a hidden one until the next.
 */
export function valueAt<V>(keyframes: readonly Keyframe<V>[], page: number, linear: boolean): V | null {
  const i = keyframeIndexAt(keyframes, page);
  const before = keyframes[i];
  if (!before || before.hidden) return null;
  const after = keyframes[i + 1];
  if (before.page === page || !after || !linear) return before.value;
  return blend(before.value, after.value, (page - before.page) / (after.page - before.page));
}

/** A wire entry of `tools` or `classifications` (the keys this module reads). */
export type WireEntry = Record<string, unknown>;

/** An entry's frame, when it has a whole one from 0. */
export function pageOf(entry: WireEntry): number | undefined {
  const p = entry.page;
  return typeof p === 'number' && Number.isInteger(p) && p >= 0 ? p : undefined;
}

/**
 * Where a point cloud's object keeps its shape, by its `markingTool`: a cuboid under `cuboid`, a
 * rectangle on a camera's image under `box`, 3D and 2D polygons and polylines under `points`.
 */
const PCT_SHAPE_KEY: Readonly<Record<string, string>> = {
  cuboid: 'cuboid',
  rectangle: 'box',
  polygon: 'points',
  polyline: 'points',
  polygon2d: 'points',
  polyline2d: 'points',
};

/** The geometry key of an object entry whose shape interpolates, if it has one. */
export function interpolatedKeyOf(entry: WireEntry): string | undefined {
  if (entry.tool === 'pct') {
    const key = PCT_SHAPE_KEY[String(entry.markingTool)];
    return key !== undefined && entry[key] !== undefined ? key : undefined;
  }
  for (const k of INTERPOLATED_TOOLS) if (entry[k] !== undefined) return k;
  return undefined;
}

/** The keyframe entries of one track (one objectId, or one frame-specific question), in page order. */
export interface WireTrack {
  key: string;
  entries: WireEntry[];
}

/**
 * Groups entries carrying `page` into tracks by `key` (objectId for objects, schemaId for
 * frame-specific classifications), in the order each track first appears, keyframes sorted by
 * page (the last of two on one page wins). Entries without a page are `whole`: they hold for the
 * whole asset.
 */
export function wireTracks(
  entries: readonly WireEntry[],
  keyOf: (e: WireEntry, index: number) => string,
): { tracks: WireTrack[]; whole: WireEntry[] } {
  const tracks = new Map<string, WireEntry[]>();
  const whole: WireEntry[] = [];
  for (const [i, e] of entries.entries()) {
    if (pageOf(e) === undefined) {
      whole.push(e);
      continue;
    }
    const key = keyOf(e, i);
    const list = tracks.get(key);
    if (list) list.push(e);
    else tracks.set(key, [e]);
  }
  const out: WireTrack[] = [];
  for (const [key, list] of tracks) {
    const byPage = new Map<number, WireEntry>();
    for (const e of list) byPage.set(pageOf(e) as number, e);
    out.push({ key, entries: [...byPage.values()].sort((a, b) => (pageOf(a) as number) - (pageOf(b) as number)) });
  }
  return { tracks: out, whole };
}

/** The track key of a tools entry: its objectId (an entry without one is a track of its own). */
export const objectKey = (e: WireEntry, index: number): string =>
  typeof e.objectId === 'string' ? `o:${e.objectId}` : `#${index}`;

/** The track key of a classification entry: its question (one answer per question and frame). */
export const questionKey = (e: WireEntry): string => `q:${String(e.schemaId)}`;

/**
 * Every frame a track is shown on, from its first keyframe to `lastFrame` (inclusive), as wire
 * entries: a keyframe as stored; a frame between two keyframes as the earlier entry (its
 * classifications, its metadata) with `page` set and the shape interpolated (boxes, rotated boxes,
 * points, polylines, polygons and segmentation zones of equal vertex counts, a point cloud's
 * cuboids, rectangles, polygons and polylines; other shapes held), marked
 * `interpolated: true`. A stop entry is given (it says where the object ends) and the frames
 * after it are not, until the next keyframe.
 */
export function* expandTrack(entries: readonly WireEntry[], lastFrame: number): Generator<WireEntry> {
  for (let i = 0; i < entries.length; i++) {
    const k = entries[i] as WireEntry;
    const page = pageOf(k) as number;
    if (page > lastFrame) return;
    yield k;
    if (k.interpolationStopped === true) continue;
    const next = entries[i + 1];
    const end = next ? Math.min((pageOf(next) as number) - 1, lastFrame) : lastFrame;
    const key = interpolatedKeyOf(k);
    const from = key === undefined ? undefined : k[key];
    const to = key !== undefined && next ? next[key] : undefined;
    const span = next ? (pageOf(next) as number) - page : 0;
    for (let f = page + 1; f <= end; f++) {
      const entry: WireEntry = { ...k, page: f, interpolated: true };
      if (key !== undefined && to !== undefined) entry[key] = blend(from, to, (f - page) / span);
      yield entry;
    }
  }
}

/** The number of frames a track is shown on, up to `lastFrame` (counting without expanding). */
export function framesShown(entries: readonly WireEntry[], lastFrame: number): number {
  let shown = 0;
  for (let i = 0; i < entries.length; i++) {
    const k = entries[i] as WireEntry;
    const page = pageOf(k) as number;
    if (page > lastFrame) break;
    if (k.interpolationStopped === true) continue;
    const next = entries[i + 1];
    const end = next ? Math.min((pageOf(next) as number) - 1, lastFrame) : lastFrame;
    shown += end - page + 1;
  }
  return shown;
}

const wholeCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;

/**
 * Whether an asset's objects are tracks over frames, and how many frames: a video's
 * `metadata.frameTotal`; null for a video whose metadata has no frame count yet (its tracks go
 * to the last frame any entry names); undefined for assets whose objects stand alone (still
 * images, and paged assets: a page of a document is no moment of a motion).
 */
export function videoFrameTotal(asset: {
  metadata: string | null;
  dataset: string | null;
  data: string;
}): number | null | undefined {
  let m: { frameTotal?: unknown; pageTotal?: unknown } = {};
  try {
    const parsed = asset.metadata ? (JSON.parse(asset.metadata) as unknown) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) m = parsed as typeof m;
  } catch {
    // Metadata that is no JSON object says nothing about frames.
  }
  if (wholeCount(m.frameTotal)) return m.frameTotal;
  const paged = wholeCount(m.pageTotal) || (asset.dataset ?? '[]') !== '[]' || /\.tiff?(?:[?#]|$)/i.test(asset.data);
  return paged ? undefined : null;
}
