import type { DrawableKind, EditorObject, Geometry, GeometryKinds } from './answer';

/**
 * An object that lives through the parts of a medium (a car across a video's frames, an organ
 * through a volume's slices): its shape is set at keyframes and in between comes from them.
 * Nothing draws tracks yet; the types say where they go so a video or volume surface adds
 * drawing, not a new model. On the wire each keyframe is one entry of the answer's `tools` with
 * the track's `objectId`, its `page` (0-based) and `interpolationStopped: true` where the object
 * leaves the view.
 */
export interface Keyframe<K extends DrawableKind = DrawableKind> {
  /** The part (frame, slice, page) it is set on, 0-based. */
  page: number;
  value: GeometryKinds[K];
  /** Out of view from here until the next keyframe (the object left the frame). */
  hidden?: boolean;
}

export interface Track<K extends DrawableKind = DrawableKind> {
  objectId: string;
  schemaId: string;
  kind: K;
  /** Ordered by page, at most one per page. */
  keyframes: Keyframe<K>[];
}

/** How a tool's values blend between two keyframes (`t` from 0 at `a` to 1 at `b`). */
export type Interpolate<K extends DrawableKind = DrawableKind> = (
  a: GeometryKinds[K],
  b: GeometryKinds[K],
  t: number,
) => GeometryKinds[K];

/**
 * The track's shape on a page: the keyframe's own on a keyframe; between two, `blend` of them
 * (a tool without a blend holds the earlier one); before the first or after the last, none
 * and the last's. Null where the object is not on the page.
 */
export function shapeAt<K extends DrawableKind>(
  track: Track<K>,
  page: number,
  blend?: Interpolate<K>,
): Geometry | null {
  const frames = track.keyframes;
  let before: Keyframe<K> | undefined;
  let after: Keyframe<K> | undefined;
  for (const k of frames) {
    if (k.page <= page) before = k;
    else {
      after = k;
      break;
    }
  }
  if (!before || before.hidden) return null;
  if (before.page === page || !after || !blend) return { kind: track.kind, value: before.value } as Geometry;
  const t = (page - before.page) / (after.page - before.page);
  return { kind: track.kind, value: blend(before.value, after.value, t) } as Geometry;
}

/**
 * The answer's objects on pages grouped into tracks: the entries that share an objectId, their
 * keyframes in page order. Objects without a page (an image's) make no track.
 */
export function tracksOf(objects: readonly EditorObject[]): Track[] {
  const tracks = new Map<string, Track>();
  for (const o of objects) {
    const page = o.where?.page;
    if (page === undefined) continue;
    let track = tracks.get(o.objectId);
    if (!track) {
      track = { objectId: o.objectId, schemaId: o.schemaId, kind: o.geometry.kind, keyframes: [] };
      tracks.set(o.objectId, track);
    }
    const hidden = o.extra.interpolationStopped === true;
    track.keyframes.push({ page, value: o.geometry.value, ...(hidden ? { hidden } : {}) });
  }
  for (const track of tracks.values()) track.keyframes.sort((a, b) => a.page - b.page);
  return [...tracks.values()];
}
