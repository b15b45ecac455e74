import type { CategorySchema } from '../../schemas/category-schema.js';
import type { TaskAnswer } from '../types.js';
import { canonicalAnswer, classificationAnswers, stableJson } from './score.js';
import { interpolatedKeyOf } from '../../shared/tracks.js';
import { bestMatch, objectSimilarity } from './similarity.js';

/**
 * The answer a consensus parent receives from its copies (copies in the order they were
 * submitted). The methods of ConsensusConfig.adjudicationMethod:
 * - `first`: the first submitted copy's answer, as is (relations included);
 * - `majority`: objects that more than half of the copies drew, and for each question the most
 *   common answer (ties go to the earliest copy; "unanswered" can win);
 * - `union`: every object any copy drew, duplicates across copies merged, and for each question
 *   the most common answer among the copies that answered it;
 * - `intersection`: objects every copy drew, and answers every copy gave alike.
 * Objects of two copies are "the same" when their similarity (similarity.ts: IoU for boxes,
 * polygons and zones, 3D IoU for a point cloud's cuboids, distance for points and polylines,
 * overlap for NER spans) is at least MATCH_IOU, or their geometry is identical (kinds and shapes
 * without a measure, such as a point cloud's polygons). A merged object keeps the
 * geometry of its most central member (highest summed similarity to the others), with that member's
 * objectId and nested classifications. Relations join object ids of one copy, so only `first`
 * keeps them.
 */

export type AdjudicationMethod = 'majority' | 'union' | 'intersection' | 'first';

/** Two objects of different copies are taken for the same object from this similarity on. */
export const MATCH_IOU = 0.5;

type Obj = Record<string, unknown>;
interface Member {
  copy: number;
  obj: Obj;
}

/** The geometry of an object without a measure (a point cloud's with its marking tool and camera). */
const shapeOf = (kind: string, o: Obj) => stableJson([o.markingTool, o.sensor, o[interpolatedKeyOf(o) ?? kind]]);

function similarity(kind: string | undefined, a: Obj, b: Obj): number {
  const measured = objectSimilarity(kind, a, b);
  if (measured !== undefined) return measured;
  return kind !== undefined && shapeOf(kind, a) === shapeOf(kind, b) ? 1 : 0;
}

/** Groups the objects of one tool across copies; a group holds at most one object per copy. */
function cluster(kind: string | undefined, perCopy: Obj[][]): Member[][] {
  const groups: Member[][] = [];
  perCopy.forEach((objects, copy) => {
    const heads = groups.map((g) => (g[0] as Member).obj);
    const matches = bestMatch(objects, heads, (o, h) => {
      const s = similarity(kind, o, h);
      return s >= MATCH_IOU ? s : 0;
    });
    const matched = new Map(matches.map((m) => [m.i, m.j]));
    objects.forEach((obj, i) => {
      const g = matched.get(i);
      if (g === undefined) groups.push([{ copy, obj }]);
      else (groups[g] as Member[]).push({ copy, obj });
    });
  });
  return groups;
}

/** The member closest to all others (ties: the earliest). */
function central(kind: string | undefined, group: Member[]): Obj {
  let best = group[0] as Member;
  let bestSum = -1;
  for (const m of group) {
    const sum = group.reduce((s, o) => (o === m ? s : s + similarity(kind, m.obj, o.obj)), 0);
    if (sum > bestSum) [best, bestSum] = [m, sum];
  }
  return best.obj;
}

function keepGroup(method: AdjudicationMethod, size: number, copies: number): boolean {
  if (method === 'intersection') return size === copies;
  if (method === 'majority') return size * 2 > copies;
  return true;
}

function adjudicateTools(method: AdjudicationMethod, copies: readonly TaskAnswer[], schema: CategorySchema): Obj[] {
  const kinds = new Map((schema.tools ?? []).map((t) => [t.schemaId, t.tool as string]));
  const schemaIds = [...new Set(copies.flatMap((c) => c.tools.map((o) => String(o.schemaId))))];
  const out: Obj[] = [];
  for (const id of schemaIds) {
    const kind = kinds.get(id);
    const perCopy = copies.map((c) => c.tools.filter((o) => o.schemaId === id));
    for (const group of cluster(kind, perCopy)) {
      if (keepGroup(method, group.length, copies.length)) out.push(central(kind, group));
    }
  }
  return out;
}

/** What two copies' items for one question must share to agree: the answer and nested answers. */
function answerKey(item: Obj): string {
  const nested = Array.isArray(item.classifications) ? (item.classifications as Obj[]) : [];
  const children = [...classificationAnswers({ tools: [], classifications: nested, relations: [] })].sort();
  return stableJson([canonicalAnswer(item.answer), children]);
}

function adjudicateClassifications(method: AdjudicationMethod, copies: readonly TaskAnswer[]): Obj[] {
  const schemaIds = [...new Set(copies.flatMap((c) => c.classifications.map((o) => String(o.schemaId))))];
  const out: Obj[] = [];
  for (const id of schemaIds) {
    // One vote per copy: its item for the question (nested answers included), or "unanswered".
    const votes = copies.map((c) => {
      const item = c.classifications.find((o) => o.schemaId === id);
      const answered = item !== undefined && canonicalAnswer(item.answer) !== null;
      return { item: answered ? item : undefined, key: answered ? answerKey(item) : null };
    });
    const tally = new Map<string | null, { count: number; item: Obj | undefined }>();
    for (const v of votes) {
      const seen = tally.get(v.key);
      if (seen) seen.count += 1;
      else tally.set(v.key, { count: 1, item: v.item });
    }
    const candidates = [...tally.entries()].filter(([key]) => method === 'majority' || key !== null);
    // Map keeps insertion order, so the first maximum is the earliest copy's answer.
    const winner = candidates.reduce<[string | null, { count: number; item: Obj | undefined }] | undefined>(
      (best, c) => (best === undefined || c[1].count > best[1].count ? c : best),
      undefined,
    );
    if (!winner || winner[1].item === undefined) continue;
    if (method === 'intersection' && winner[1].count !== copies.length) continue;
    out.push(winner[1].item);
  }
  return out;
}

/** The adjudicated answer of copies listed in submission order. */
export function adjudicate(
  method: AdjudicationMethod,
  copies: readonly TaskAnswer[],
  schema: CategorySchema,
): TaskAnswer {
  const first = copies[0];
  if (!first) return { tools: [], classifications: [], relations: [] };
  if (method === 'first') return structuredClone(first);
  return structuredClone({
    tools: adjudicateTools(method, copies, schema),
    classifications: adjudicateClassifications(method, copies),
    relations: [],
  });
}
