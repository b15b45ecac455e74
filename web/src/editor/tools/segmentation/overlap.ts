import { type OverlapRule, settleOverlaps } from '../../../../../src/shared/overlap';
import type { EditorAnswer } from '../../core/answer';
import { deleteObject } from '../../core/edit';
import type { Segmentation } from './zones';

export type { OverlapRule };

/**
 * The project's `segmentationOverlap` applied to the segmentation object that was just drawn or
 * changed (`objectId`), against the other segmentation objects of its page, by the server's rule
 * (src/shared/overlap.ts): the answer's order is the drawing order. An object left with nothing
 * is removed. Answers the answer unchanged when nothing overlaps.
 */
export function settleAnswer(answer: EditorAnswer, objectId: string, rule: OverlapRule | undefined): EditorAnswer {
  if (!rule || rule === 'allow') return answer;
  const zoned = answer.objects.filter((o) => o.geometry.kind === 'segmentation');
  const changed = zoned.findIndex((o) => o.objectId === objectId);
  if (changed < 0) return answer;
  const settled = settleOverlaps(
    zoned.map((o) => ({ value: o.geometry.value as Segmentation, page: o.where?.page })),
    rule,
    new Set([changed]),
  );
  let next = answer;
  settled.forEach((s, i) => {
    if (!s.cut) return;
    const id = zoned[i]!.objectId;
    next = s.covered
      ? deleteObject(next, id)
      : {
          ...next,
          objects: next.objects.map((o) =>
            o.objectId === id ? { ...o, geometry: { kind: 'segmentation', value: s.value } } : o,
          ),
        };
  });
  return next;
}
