import type { CategorySchema } from '../../schemas/category-schema.js';
import { type PointLabels, readPointLabels } from '../../shared/pointcloud/point-labels.js';
import type { TaskAnswer } from '../types.js';

/*
 * How alike two answers' point labels (`pointLabels`, point-cloud segmentation: per frame a
 * run-length code of one class per point, docs/api.md) are. Points are compared by their place in
 * the frame's file, frame by frame, walking both codes' runs side by side (never one entry per
 * point): a frame one answer does not label, and points past the end of one answer's runs, are
 * unlabelled in it. Per class, with A and B the points each answer gives that class over every
 * frame, IoU = |A∩B| / |A∪B|; a class neither gives is not measured. Beside it, the share of
 * points given the same class among the points either answer labels.
 */

/** Points per class of two answers: given it by the first, by the second, by both. */
export interface PointCounts {
  a: number;
  b: number;
  both: number;
}

export interface PointComparison {
  /** By class schemaId, the classes either answer gives some point. */
  classes: Map<string, PointCounts>;
  /** Points either answer labels, and of those, the points both give the same class. */
  labelled: number;
  same: number;
}

/** A frame's runs as [count, schemaId or null] pairs, read one run at a time. */
function runReader(item: PointLabels | undefined) {
  let r = 0;
  let left = 0;
  let cls: string | null = null;
  return {
    /** The class of the run in force and how many points it still covers (Infinity past the end). */
    peek(): [number, string | null] {
      while (left === 0 && item && r + 1 < item.runs.length) {
        left = item.runs[r] as number;
        const index = item.runs[r + 1] as number;
        cls = index > 0 ? (item.classes[index - 1] ?? null) : null;
        r += 2;
      }
      return left === 0 ? [Infinity, null] : [left, cls];
    },
    /** Moves `n` points on (past the end, nothing is left to move). */
    take(n: number) {
      if (left > 0) left -= n;
    },
  };
}

/** Compares two answers' `pointLabels` (see the file comment); malformed items label nothing. */
export function comparePointLabels(a: unknown, b: unknown): PointComparison {
  const out: PointComparison = { classes: new Map(), labelled: 0, same: 0 };
  const [byA, byB] = [readPointLabels(a), readPointLabels(b)].map(
    (list) => new Map(list.map((item) => [item.page, item])),
  ) as [Map<number, PointLabels>, Map<number, PointLabels>];
  const counts = (cls: string) => {
    let c = out.classes.get(cls);
    if (!c) out.classes.set(cls, (c = { a: 0, b: 0, both: 0 }));
    return c;
  };
  for (const page of new Set([...byA.keys(), ...byB.keys()])) {
    const [ra, rb] = [runReader(byA.get(page)), runReader(byB.get(page))];
    for (;;) {
      const [na, ca] = ra.peek();
      const [nb, cb] = rb.peek();
      const n = Math.min(na, nb);
      if (n === Infinity) break;
      ra.take(n);
      rb.take(n);
      if (ca === null && cb === null) continue;
      out.labelled += n;
      if (ca !== null) counts(ca).a += n;
      if (cb !== null) counts(cb).b += n;
      if (ca === cb) {
        out.same += n;
        counts(ca as string).both += n;
      }
    }
  }
  return out;
}

/** IoU of a class's points, 0 to 1. */
export const pointIoU = (c: PointCounts): number => c.both / (c.a + c.b - c.both);

/** The classes points are labelled with: the schemaIds of the ontology's pct tools, in its order. */
export function pointClasses(schema: CategorySchema): string[] {
  return (schema.tools ?? []).filter((t) => t.tool === 'pct').map((t) => t.schemaId);
}

/**
 * Per class of the ontology (in its order) that at least one copy gives a point, the mean over
 * every pair of copies of the IoU of that class's points; a pair where neither gives the class
 * agrees on it fully.
 */
export function pointAgreement(
  copies: readonly TaskAnswer[],
  schema: CategorySchema,
): { schemaId: string; value: number }[] {
  const pairs: PointComparison[] = [];
  for (let i = 0; i < copies.length; i += 1) {
    for (let j = i + 1; j < copies.length; j += 1) {
      pairs.push(comparePointLabels(copies[i]?.pointLabels, copies[j]?.pointLabels));
    }
  }
  const given = new Set(pairs.flatMap((p) => [...p.classes.keys()]));
  return pointClasses(schema)
    .filter((id) => given.has(id))
    .map((schemaId) => {
      const sum = pairs.reduce((s, p) => {
        const c = p.classes.get(schemaId);
        return s + (c ? pointIoU(c) : 1);
      }, 0);
      return { schemaId, value: sum / pairs.length };
    });
}
