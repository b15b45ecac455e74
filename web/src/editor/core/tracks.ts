import {
  blend as blendValues,
  interpolates,
  keyframeIndexAt,
  type Keyframe as SharedKeyframe,
} from '../../../../src/shared/tracks';
import type { ClassificationAnswer, DrawableKind, EditorAnswer, EditorObject, Geometry, GeometryKinds } from './answer';

/**
 * An object that lives through the parts of a medium (a car across a video's frames, an organ
 * through a volume's slices): its shape is set at keyframes and in between comes from them, by
 * the rules of src/shared/tracks.ts, which the server's exports follow too. On the wire each keyframe is one entry of the answer's `tools` with
 * the track's `objectId`, its `page` (0-based) and `interpolationStopped: true` where the object
 * leaves the view.
 */
export type Keyframe<K extends DrawableKind = DrawableKind> = SharedKeyframe<GeometryKinds[K]>;

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
 * (a tool without a blend holds the earlier one; `interpolates` says which tools blend); before the first or after the last, none
 * and the last's. Null where the object is not on the page.
 */
export function shapeAt<K extends DrawableKind>(
  track: Track<K>,
  page: number,
  blend?: Interpolate<K>,
): Geometry | null {
  const i = keyframeIndexAt(track.keyframes, page);
  const before = track.keyframes[i];
  const after = track.keyframes[i + 1];
  if (!before || before.hidden) return null;
  if (before.page === page || !after || !blend) return { kind: track.kind, value: before.value } as Geometry;
  const t = (page - before.page) / (after.page - before.page);
  return { kind: track.kind, value: blend(before.value, after.value, t) } as Geometry;
}

/** An answer's tracks, with each track's entries in page order (for the keyframe at or before a page). */
interface TrackIndex {
  tracks: Track[];
  entries: Map<string, EditorObject[]>;
}

/**
 * Answers are immutable (each edit makes a new `objects` array), so the tracks of one array are
 * worked out once: a video's frame change then costs a lookup per track, not a pass over every
 * keyframe of the answer per track.
 */
const indexes = new WeakMap<readonly EditorObject[], TrackIndex>();

function trackIndex(objects: readonly EditorObject[]): TrackIndex {
  const known = indexes.get(objects);
  if (known) return known;
  const tracks = new Map<string, Track>();
  const entries = new Map<string, EditorObject[]>();
  for (const o of objects) {
    if (o.where?.page === undefined) continue;
    let track = tracks.get(o.objectId);
    if (!track) {
      track = { objectId: o.objectId, schemaId: o.schemaId, kind: o.geometry.kind, keyframes: [] };
      tracks.set(o.objectId, track);
      entries.set(o.objectId, []);
    }
    entries.get(o.objectId)!.push(o);
  }
  for (const [objectId, track] of tracks) {
    const list = entries.get(objectId)!;
    list.sort((a, b) => a.where!.page! - b.where!.page!);
    track.keyframes = list.map((o) => {
      const hidden = o.extra.interpolationStopped === true;
      return { page: o.where!.page!, value: o.geometry.value, ...(hidden ? { hidden } : {}) };
    });
  }
  const index = { tracks: [...tracks.values()], entries };
  indexes.set(objects, index);
  return index;
}

/**
 * The answer's objects on pages grouped into tracks: the entries that share an objectId, their
 * keyframes in page order. Objects without a page (an image's) make no track. The same array of
 * objects answers the same tracks (not to be changed by the caller).
 */
export function tracksOf(objects: readonly EditorObject[]): readonly Track[] {
  return trackIndex(objects).tracks;
}

/** The blend of the tools that interpolate (shared with the server's exports): numbers move linearly, shapes of different structure hold. */
export const linearBlend: Interpolate = (a, b, t) => blendValues(a, b, t);

/**
 * The objects shown on a page: each track's shape there (a keyframe's, or blended), carrying
 * the classifications of the keyframe at or before the page. Objects without a page are shown
 * everywhere.
 */
export function objectsOnPage(objects: readonly EditorObject[], page: number): EditorObject[] {
  const shown: EditorObject[] = [];
  for (const o of objects) if (o.where?.page === undefined) shown.push(o);
  for (const track of tracksOf(objects)) {
    const geometry = shapeAt(track, page, interpolates(track.kind) ? linearBlend : undefined);
    if (!geometry) continue;
    const entry = keyframeEntry(objects, track.objectId, page);
    if (entry) shown.push({ ...entry, geometry, where: { ...entry.where, page } });
  }
  return shown;
}

/** The entry of the keyframe at or before the page (the one whose classifications hold there). */
export function keyframeEntry(
  objects: readonly EditorObject[],
  objectId: string,
  page: number,
): EditorObject | undefined {
  const list = trackIndex(objects).entries.get(objectId);
  if (!list) return undefined;
  // The greatest page at or before `page` (binary search over the page-ordered entries); of
  // two entries on that page, the first in the answer (the sort is stable).
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.where!.page! <= page) lo = mid + 1;
    else hi = mid;
  }
  if (lo === 0) return undefined;
  let at = lo - 1;
  while (at > 0 && list[at - 1]!.where!.page === list[at]!.where!.page) at--;
  return list[at];
}

/**
 * Sets an object's entry on a page: the keyframe there is changed, or one is made from the entry
 * before it (its classifications kept, shown again if it was hidden). `change` edits the entry.
 */
export function setKeyframe(
  objects: readonly EditorObject[],
  objectId: string,
  page: number,
  change: (entry: EditorObject) => EditorObject,
): EditorObject[] {
  const at = objects.findIndex((o) => o.objectId === objectId && o.where?.page === page);
  if (at >= 0) return objects.map((o, i) => (i === at ? change(o) : o));
  const before = keyframeEntry(objects, objectId, page) ?? objects.find((o) => o.objectId === objectId);
  if (!before) return [...objects];
  const shown = objectsOnPage(
    objects.filter((o) => o.objectId === objectId),
    page,
  )[0];
  const { interpolationStopped: _stopped, ...extra } = before.extra;
  const entry: EditorObject = {
    ...before,
    geometry: shown?.geometry ?? before.geometry,
    where: { ...before.where, page },
    extra,
  };
  return [...objects, change(entry)];
}

/**
 * An answer edited as shown on a page (`shown`, whose objects are `objectsOnPage`) put back into
 * the whole answer: an object's changed questions make a keyframe on the page, a removed object
 * goes with all its keyframes.
 */
export function mergeShown(
  full: EditorAnswer,
  shown: EditorAnswer,
  next: EditorAnswer,
  page: number,
  frameQuestions: ReadonlySet<string> = new Set(),
): EditorAnswer {
  const before = new Map(shown.objects.map((o) => [o.objectId, o]));
  const kept = new Set(next.objects.map((o) => o.objectId));
  let objects = full.objects.filter((o) => kept.has(o.objectId) || !before.has(o.objectId));
  for (const o of next.objects) {
    const was = before.get(o.objectId);
    if (was === o) continue;
    if (!was) objects = [...objects, o];
    else if (o.where?.page === undefined) objects = objects.map((x) => (x.objectId === o.objectId ? o : x));
    else objects = setKeyframe(objects, o.objectId, page, (e) => ({ ...e, classifications: o.classifications }));
  }
  const classifications = setAnswersAt(
    full.classifications,
    shown.classifications,
    next.classifications,
    page,
    frameQuestions,
  );
  return { ...next, objects, classifications };
}

/** A frame-specific question's entries in page order (an entry without a page counts as page 0). */
function entriesOf(list: readonly ClassificationAnswer[], schemaId: string): ClassificationAnswer[] {
  return list.filter((c) => c.schemaId === schemaId).sort((a, b) => (a.page ?? 0) - (b.page ?? 0));
}

/** The answer a frame-specific question has on a page: its entry at or before it, unless stopped. */
export function answerAt(list: readonly ClassificationAnswer[], schemaId: string, page: number) {
  const before = entriesOf(list, schemaId)
    .filter((c) => (c.page ?? 0) <= page)
    .at(-1);
  if (!before || before.interpolationStopped) return undefined;
  const { page: _page, interpolationStopped: _stopped, ...answer } = before;
  return answer;
}

/**
 * The task's questions as answered on a page: the whole-video questions as they are, each
 * frame-specific one (`frameQuestions`, by schemaId) with the answer it has there.
 */
export function answersAt(
  list: readonly ClassificationAnswer[],
  page: number,
  frameQuestions: ReadonlySet<string>,
): ClassificationAnswer[] {
  if (frameQuestions.size === 0) return [...list];
  const whole = list.filter((c) => !frameQuestions.has(c.schemaId));
  return [...whole, ...[...frameQuestions].flatMap((id) => answerAt(list, id, page) ?? [])];
}

/**
 * Questions answered as shown on a page (`shown` from `answersAt`, edited into `next`) put back:
 * a frame-specific answer changed there becomes an entry with that `page` (a cleared one a stop
 * entry, `interpolationStopped: true`, keeping the answer it stops); an entry that says what the
 * frame before already says is left out.
 */
export function setAnswersAt(
  full: readonly ClassificationAnswer[],
  shown: readonly ClassificationAnswer[],
  next: readonly ClassificationAnswer[],
  page: number,
  frameQuestions: ReadonlySet<string>,
): ClassificationAnswer[] {
  if (frameQuestions.size === 0) return [...next];
  let out = [
    ...next.filter((c) => !frameQuestions.has(c.schemaId)),
    ...full.filter((c) => frameQuestions.has(c.schemaId)),
  ];
  const same = (a: ClassificationAnswer | undefined, b: ClassificationAnswer | undefined) =>
    JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  for (const id of frameQuestions) {
    const was = shown.find((c) => c.schemaId === id);
    const now = next.find((c) => c.schemaId === id);
    if (same(was, now)) continue;
    out = out.filter((c) => !(c.schemaId === id && (c.page ?? 0) === page));
    const before = page > 0 ? answerAt(out, id, page - 1) : undefined;
    if (now && !same(before, now)) out.push({ ...now, page });
    else if (!now && before) out.push({ ...before, page, interpolationStopped: true });
  }
  return out;
}

/** The page of an object's next (`1`) or previous (`-1`) keyframe from a page, if it has one. */
export function keyframeStepFrom(
  objects: readonly EditorObject[],
  objectId: string,
  page: number,
  direction: 1 | -1,
): number | undefined {
  const track = tracksOf(objects).find((t) => t.objectId === objectId);
  const pages = (track?.keyframes ?? []).map((k) => k.page);
  return direction > 0 ? pages.find((p) => p > page) : pages.reverse().find((p) => p < page);
}
