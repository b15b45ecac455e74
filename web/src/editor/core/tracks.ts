import type { DrawableKind, Geometry, GeometryKinds } from './answer';

/**
 * An object that lives through the parts of a medium (a car across a video's frames, an organ
 * through a volume's slices): its shape is set at keyframes and in between comes from them.
 * Nothing draws tracks yet; the types say where they go so a video or volume surface adds
 * drawing, not a new model.
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
