import type { CategorySchema } from '../../schemas/category-schema.js';
import type { TaskAnswer } from '../types.js';
import { brushAgreement, brushClasses, classificationAnswers, ontologyQuestions } from './score.js';
import { type BrushClasses, matchedShare, matchTool, scoredObjects } from './similarity.js';
import { comparePointLabels, pointClasses, pointIoU } from './point-agreement.js';
import { type VoxelClasses, voxelClasses, voxelOverlaps } from './voxel-overlap.js';

export interface ScoreItem {
  /** The question's or tool's schemaId. */
  schemaId: string;
  /**
   * `brush`: a brush class, scored by the IoU of its pixels in the two brush layers; `points`: a
   * pct tool's class, scored by the IoU of the points the two answers' `pointLabels` give it.
   */
  kind: 'classification' | 'object' | 'voxels' | 'brush' | 'points';
  /** 0 to 1 */
  score: number;
  /**
   * Objects: each reference object (on a video or point-cloud sequence, each track) with its
   * matched object and their similarity (0 when missed).
   */
  objects?: { referenceId: unknown; objectId: unknown; similarity: number }[];
  /** Objects drawn that match nothing in the reference. */
  extra?: number;
  /** Voxels: the Dice (the score) and IoU of the class's voxels against the reference's. */
  dice?: number;
  iou?: number;
  /**
   * Points: the share of the points either answer labels that both give the same class (over
   * every class; the same in each `points` item).
   */
  sameClass?: number;
}

/** The voxel layers (`medicalBrushDataUrl`) of the answer and of the reference, when either has one. */
export interface BenchmarkVoxels {
  answer?: VoxelClasses | undefined;
  reference?: VoxelClasses | undefined;
}

/** The brush layers (`brushDataUrl`) of the answer and of the reference, read as class numbers. */
export interface BenchmarkBrush {
  answer?: BrushClasses | undefined;
  reference?: BrushClasses | undefined;
}

export interface BenchmarkScore {
  /** 0 to 100 */
  score: number;
  items: ScoreItem[];
}

/** A multi-select compares as sets (Jaccard); any other answer is right or wrong. */
function answerSimilarity(ref: string | undefined, got: string | undefined): number {
  if (ref === got) return 1;
  if (ref === undefined || got === undefined) return 0;
  const a = JSON.parse(ref) as unknown;
  const b = JSON.parse(got) as unknown;
  if (!Array.isArray(a) || !Array.isArray(b)) return 0;
  const sa = new Set(a.map((v) => JSON.stringify(v)));
  const sb = new Set(b.map((v) => JSON.stringify(v)));
  const both = [...sa].filter((v) => sb.has(v)).length;
  return both / new Set([...sa, ...sb]).size;
}

/**
 * A labeler's answer against a benchmark's reference, by the consensus scorer's rules: each
 * question answered in either scores 1 when equal (a multi-select by Jaccard); each tool with a
 * measure (similarity.ts: IoU for boxes, rotated boxes, polygons and segmentation zones, 3D IoU
 * for a point cloud's cuboids, distance for points and polylines, shared over covered characters
 * for NER spans) used in either matches objects one to one, most alike first, and scores the
 * matched similarities summed over the larger object count, so a missed or an extra object counts
 * 0; on a video or point-cloud sequence (`lastFrame`, its last frame from 0) objects are tracks,
 * matched as consensus matches them (score.ts); each medical-brush class either
 * voxel layer gives scores the Dice of its voxels against the reference's (IoU kept beside it,
 * voxel-overlap.ts); each brush class painted in either brush layer scores the IoU of its pixels
 * against the reference's (a missing layer paints nothing); each pct tool's class that either
 * answer's point labels give a point scores the IoU of its points against the reference's
 * (point-agreement.ts). The score is the mean of the items,
 * times 100; with nothing to compare it is 100.
 */
export function scoreBenchmark(
  answer: TaskAnswer,
  reference: TaskAnswer,
  schema: CategorySchema,
  voxels: BenchmarkVoxels = {},
  brush: BenchmarkBrush = {},
  lastFrame?: number,
): BenchmarkScore {
  const items: ScoreItem[] = [];
  const [got, ref] = [classificationAnswers(answer), classificationAnswers(reference)];
  for (const id of new Set(ontologyQuestions(schema))) {
    if (!got.has(id) && !ref.has(id)) continue;
    items.push({ schemaId: id, kind: 'classification', score: answerSimilarity(ref.get(id), got.get(id)) });
  }
  for (const tool of schema.tools ?? []) {
    const a = scoredObjects(tool.tool, tool.schemaId, reference.tools);
    const b = scoredObjects(tool.tool, tool.schemaId, answer.tools);
    if (a.length === 0 && b.length === 0) continue;
    const matched = matchTool(tool.tool, a, b, lastFrame);
    if (!matched) continue;
    const { matches } = matched;
    const byRef = new Map(matches.map((m) => [m.i, m]));
    const objects = matched.a.map((id, i) => {
      const m = byRef.get(i);
      return { referenceId: id, objectId: m ? matched.b[m.j] : null, similarity: m?.similarity ?? 0 };
    });
    const score = matchedShare(matches, matched.a.length, matched.b.length);
    items.push({ schemaId: tool.schemaId, kind: 'object', score, objects, extra: matched.b.length - matches.length });
  }
  if (voxels.answer || voxels.reference) {
    const overlaps = voxelOverlaps(voxels.reference, voxels.answer);
    for (const { schemaId, value } of voxelClasses(schema)) {
      const o = overlaps.get(value);
      if (o) items.push({ schemaId, kind: 'voxels', score: o.dice, dice: o.dice, iou: o.iou });
    }
  }
  for (const { schemaId, value } of brushClasses(schema)) {
    const iou = brushAgreement([brush.reference, brush.answer], value);
    if (iou !== undefined) items.push({ schemaId, kind: 'brush', score: iou });
  }
  const points = comparePointLabels(reference.pointLabels, answer.pointLabels);
  for (const schemaId of pointClasses(schema)) {
    const counts = points.classes.get(schemaId);
    if (!counts) continue;
    const iou = pointIoU(counts);
    items.push({ schemaId, kind: 'points', score: iou, iou, sameClass: points.same / points.labelled });
  }
  const mean = items.length === 0 ? 1 : items.reduce((s, i) => s + i.score, 0) / items.length;
  return { score: Math.round(mean * 100 * 1000) / 1000, items };
}
