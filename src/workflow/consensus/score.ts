import type { CategorySchema, Classification } from '../../schemas/category-schema.js';
import { pageOf, type WireEntry } from '../../shared/tracks.js';
import type { TaskAnswer } from '../types.js';
import {
  brushClassIoU,
  type BrushClasses,
  isScoredKind,
  matchedShare,
  matchTool,
  paintsClass,
  scoredObjects,
} from './similarity.js';
import { pointAgreement } from './point-agreement.js';
import { type VoxelClasses, voxelAgreement, voxelClasses } from './voxel-overlap.js';

/**
 * The agreement score of consensus copies, in [0, 1] (DECISIONS 4):
 * - each classification question of the ontology (nested ones included) that at least one copy
 *   answered scores the share of copies giving the most common answer (A, A, B -> 2/3; a copy
 *   that left it unanswered counts as one more distinct answer);
 * - each tool of the ontology with a measure (boxes, rotated boxes, polygons, segmentation zones,
 *   points, polylines, NER spans: see similarity.ts, the measure benchmark scores use too) that at
 *   least one copy used scores the mean, over every pair of copies, of their best match: objects
 *   are matched one to one, most alike first, and the matched similarities are summed and divided
 *   by the larger object count (an unmatched object counts 0; two copies without objects agree);
 * - on a video or a point-cloud sequence (`lastFrame` given), objects are tracks: a tool's
 *   tracks are matched one to one the same way, two tracks scoring the mean of their objects'
 *   similarity over the frames either shows (keyframes expanded as exports expand them), over
 *   the larger track count; a point cloud's cuboids compare by 3D IoU, its other shapes are not
 *   scored;
 * - each brush class that at least one copy's brush layer paints scores the mean, over every
 *   pair of copies, of the IoU of the pixels both painted in that class (given the layers);
 * - each medical-brush class (its voxel value) that at least one copy's voxel layer gives scores
 *   the mean, over every pair of copies, of the Dice of its voxels (voxel-overlap.ts);
 * - each pct tool whose class some copy's point labels (`pointLabels`) give a point scores the
 *   mean, over every pair of copies, of the IoU of that class's points (point-agreement.ts);
 * - the score is the mean of those items; with nothing to compare, copies agree fully (1).
 * Other tool kinds (PDF marks, angles) are not scored.
 */

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A stable text for any JSON value: object keys sorted, so equal answers compare equal. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isRec(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The comparable form of a classification answer; null when unanswered. Multi-selects are sets. */
export function canonicalAnswer(v: unknown): string | null {
  if (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)) return null;
  if (Array.isArray(v)) return stableJson(v.map(stableJson).sort());
  return stableJson(v);
}

/** schemaId -> canonical answer of every answered classification, nested answers included. */
export function classificationAnswers(answer: TaskAnswer): Map<string, string> {
  const found = new Map<string, string[]>();
  const walk = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const item of list) {
      if (!isRec(item) || typeof item.schemaId !== 'string') continue;
      const value = canonicalAnswer(item.answer);
      if (value !== null) found.set(item.schemaId, [...(found.get(item.schemaId) ?? []), value]);
      walk(item.classifications);
    }
  };
  walk(answer.classifications);
  // A question answered several times in one copy (e.g. per frame) compares as the set of answers.
  return new Map(
    [...found].map(([id, values]) => [id, values.length === 1 ? (values[0] as string) : stableJson(values.sort())]),
  );
}

/** Share of the values equal to the most common one (null = unanswered is a value too). */
export function shareAgreeing(values: readonly (string | null)[]): number {
  if (values.length === 0) return 1;
  const counts = new Map<string | null, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return Math.max(...counts.values()) / values.length;
}

/**
 * Agreement of two copies' objects of one tool: matched similarities summed over the larger
 * count; on a video (`lastFrame`, its last frame counted from 0), of their tracks.
 */
export function pairAgreement(kind: string, a: readonly Rec[], b: readonly Rec[], lastFrame?: number): number {
  const m = matchTool(kind, a, b, lastFrame);
  return m ? matchedShare(m.matches, m.a.length, m.b.length) : 0;
}

/**
 * The last frame (from 0) whose objects are compared as tracks, given the asset's frame count as
 * videoFrameTotal reads it (a video's or a point-cloud sequence's `frameTotal`): its last frame;
 * with no count read yet (null), the last frame any answer names; undefined for assets whose
 * objects stand alone (still images, pages).
 */
export function lastFrameToCompare(
  frames: number | null | undefined,
  answers: readonly TaskAnswer[],
): number | undefined {
  if (frames !== null) return frames === undefined ? undefined : frames - 1;
  const pages = answers.flatMap((a) => a.tools.map((e) => pageOf(e as WireEntry) ?? -1));
  const last = Math.max(-1, ...pages);
  return last < 0 ? undefined : last;
}

/** Mean pairwise agreement of every copy's objects of one tool (tracks on a video: `lastFrame`). */
export function toolAgreement(kind: string, perCopy: readonly (readonly Rec[])[], lastFrame?: number): number {
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < perCopy.length; i += 1) {
    for (let j = i + 1; j < perCopy.length; j += 1) {
      sum += pairAgreement(kind, perCopy[i] ?? [], perCopy[j] ?? [], lastFrame);
      pairs += 1;
    }
  }
  return pairs === 0 ? 1 : sum / pairs;
}

/** The ontology's brush tools, each with the number its pixels have in a read layer (1-based). */
export function brushClasses(schema: CategorySchema): { schemaId: string; value: number }[] {
  return (schema.tools ?? []).filter((t) => t.tool === 'brush').map((t, k) => ({ schemaId: t.schemaId, value: k + 1 }));
}

/** Mean pairwise IoU of one brush class over the copies' layers; undefined when none paints it. */
export function brushAgreement(layers: readonly (BrushClasses | undefined)[], value: number): number | undefined {
  if (!layers.some((l) => paintsClass(l, value))) return undefined;
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < layers.length; i += 1) {
    for (let j = i + 1; j < layers.length; j += 1) {
      sum += brushClassIoU(layers[i], layers[j], value);
      pairs += 1;
    }
  }
  return pairs === 0 ? 1 : sum / pairs;
}

/** Every classification schemaId of the ontology, at any depth. */
export function ontologyQuestions(schema: CategorySchema): string[] {
  const ids: string[] = [];
  const walk = (list: readonly Classification[] | undefined) => {
    for (const c of list ?? []) {
      ids.push(c.schemaId);
      walk(c.classifications);
      for (const o of c.options ?? []) walk(o.children);
    }
  };
  walk(schema.classifications);
  return ids;
}

/**
 * The agreement score of the copies' answers against the ontology (see the file comment);
 * `layers`: each copy's brush layer read as class numbers, in the copies' order; `lastFrame`:
 * the asset's last frame when it is a video (its objects are tracks); `voxels`: each copy's voxel
 * layer (`medicalBrushDataUrl`), in the copies' order.
 */
export function agreementScore(
  copies: readonly TaskAnswer[],
  schema: CategorySchema,
  layers: readonly (BrushClasses | undefined)[] = [],
  lastFrame?: number,
  voxels: readonly (VoxelClasses | undefined)[] = [],
): number {
  if (copies.length < 2) return 1;
  const items: number[] = [];
  const answers = copies.map(classificationAnswers);
  for (const id of new Set(ontologyQuestions(schema))) {
    const values = answers.map((a) => a.get(id) ?? null);
    if (values.some((v) => v !== null)) items.push(shareAgreeing(values));
  }
  for (const tool of schema.tools ?? []) {
    if (!isScoredKind(tool.tool)) continue;
    const perCopy = copies.map((c) => scoredObjects(tool.tool, tool.schemaId, c.tools));
    if (perCopy.some((list) => list.length > 0)) items.push(toolAgreement(tool.tool, perCopy, lastFrame));
  }
  for (const { value } of brushClasses(schema)) {
    const agreed = brushAgreement(
      copies.map((_, k) => layers[k]),
      value,
    );
    if (agreed !== undefined) items.push(agreed);
  }
  const classes = voxelClasses(schema).map((c) => c.value);
  const perCopy = copies.map((_, k) => voxels[k]);
  for (const overlap of voxelAgreement(perCopy, classes).values()) items.push(overlap.dice);
  for (const { value } of pointAgreement(copies, schema)) items.push(value);
  return items.length === 0 ? 1 : items.reduce((s, v) => s + v, 0) / items.length;
}
