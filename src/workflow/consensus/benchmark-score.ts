import type { CategorySchema } from '../../schemas/category-schema.js';
import polygonClipping, { type Polygon, type Ring } from 'polygon-clipping';
import type { TaskAnswer } from '../types.js';
import { multiPolygonArea } from '../zones.js';
import { bestMatch, classificationAnswers, isScoredKind, objectIoU, ontologyQuestions } from './score.js';

/** Points further apart than this (in the medium's pixels) do not match at all. */
export const POINT_MATCH_DISTANCE = 20;

export interface ScoreItem {
  /** The question's or tool's schemaId. */
  schemaId: string;
  kind: 'classification' | 'object';
  /** 0 to 1 */
  score: number;
  /** Objects: each reference object with its matched object and their similarity (0 when missed). */
  objects?: { referenceId: unknown; objectId: unknown; similarity: number }[];
  /** Objects drawn that match nothing in the reference. */
  extra?: number;
}

export interface BenchmarkScore {
  /** 0 to 100 */
  score: number;
  items: ScoreItem[];
}

type Rec = Record<string, unknown>;

type Xy = [number, number];
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A point as the API keeps it (`[x, y]`), or as `{x, y}`. */
function xyOf(v: unknown): Xy | undefined {
  if (Array.isArray(v) && isNum(v[0]) && isNum(v[1])) return [v[0], v[1]];
  const r = v as Rec | undefined;
  return r && isNum(r.x) && isNum(r.y) ? [r.x, r.y] : undefined;
}

function pointSimilarity(a: unknown, b: unknown): number {
  const pa = xyOf((a as Rec).point);
  const pb = xyOf((b as Rec).point);
  if (!pa || !pb) return 0;
  return Math.max(0, 1 - Math.hypot(pa[0] - pb[0], pa[1] - pb[1]) / POINT_MATCH_DISTANCE);
}

function lineOf(o: unknown): Xy[] | undefined {
  const raw = (o as Rec).polyline;
  if (!Array.isArray(raw)) return undefined;
  const pts = raw.map(xyOf);
  return pts.length >= 2 && pts.every((p) => p !== undefined) ? (pts as Xy[]) : undefined;
}

/** Distance from a point to the nearest segment of a polyline. */
function distanceToLine([px, py]: Xy, line: Xy[]): number {
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

/**
 * Polylines: 1 - the mean distance of each one's vertices to the other line (both ways) over
 * POINT_MATCH_DISTANCE, so the same line drawn with other vertices still scores 1.
 */
export function lineSimilarity(a: unknown, b: unknown): number {
  const la = lineOf(a);
  const lb = lineOf(b);
  if (!la || !lb) return 0;
  const d = [...la.map((p) => distanceToLine(p, lb)), ...lb.map((p) => distanceToLine(p, la))];
  const mean = d.reduce((s, x) => s + x, 0) / d.length;
  return Math.max(0, 1 - mean / POINT_MATCH_DISTANCE);
}

/** A segmentation object's zones as polygons (outline, then holes), or undefined when malformed. */
function zonesOf(o: unknown): Polygon[] | undefined {
  const zones = ((o as Rec).segmentation as Rec | undefined)?.zones;
  if (!Array.isArray(zones)) return undefined;
  const out: Polygon[] = [];
  for (const z of zones as Rec[]) {
    const rings = [z?.region, ...(Array.isArray(z?.holes) ? z.holes : [])].map((r) =>
      Array.isArray(r) ? r.map(xyOf) : [undefined],
    );
    if (rings.some((r) => r.length < 3 || r.some((p) => p === undefined))) return undefined;
    out.push(rings as Ring[]);
  }
  return out;
}

/** Segmentation objects: IoU of their areas, holes cut out. */
export function zoneSimilarity(a: unknown, b: unknown): number {
  const za = zonesOf(a);
  const zb = zonesOf(b);
  if (!za?.length || !zb?.length) return 0;
  const union = multiPolygonArea(polygonClipping.union(za, zb));
  return union > 0 ? multiPolygonArea(polygonClipping.intersection(za, zb)) / union : 0;
}

function spanOf(o: unknown): { start: number; end: number } | undefined {
  const span = (o as Rec).ner as Rec | undefined;
  const [start, end] = [span?.start, span?.end];
  return typeof start === 'number' && typeof end === 'number' && Number.isFinite(start) && Number.isFinite(end)
    ? { start, end }
    : undefined;
}

/**
 * Overlap of two text spans ({ner: {start, end}}, end exclusive): the shared characters over the
 * characters either covers (1 for the same span, 0 when they do not overlap or are malformed).
 */
export function spanSimilarity(a: unknown, b: unknown): number {
  const [sa, sb] = [spanOf(a), spanOf(b)];
  if (!sa || !sb) return 0;
  if (sa.start === sb.start && sa.end === sb.end) return 1;
  const shared = Math.min(sa.end, sb.end) - Math.max(sa.start, sb.start);
  const covered = Math.max(sa.end, sb.end) - Math.min(sa.start, sb.start);
  return shared > 0 && covered > 0 ? shared / covered : 0;
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
 * question answered in either scores 1 when equal (a multi-select by Jaccard); each tool used in
 * either matches objects one to one, highest similarity first (IoU for boxes, rotated boxes and
 * polygons; 1 - distance / POINT_MATCH_DISTANCE for points; the lines' mean distance the same
 * way for polylines; IoU with holes cut out for segmentation zones; shared over covered characters
 * for NER spans) and scores the matched similarities
 * summed over the larger object count, so a missed or an extra object counts 0. The score is the
 * mean of the items, times 100; with nothing to compare it is 100.
 */
export function scoreBenchmark(answer: TaskAnswer, reference: TaskAnswer, schema: CategorySchema): BenchmarkScore {
  const items: ScoreItem[] = [];
  const [got, ref] = [classificationAnswers(answer), classificationAnswers(reference)];
  for (const id of new Set(ontologyQuestions(schema))) {
    if (!got.has(id) && !ref.has(id)) continue;
    items.push({ schemaId: id, kind: 'classification', score: answerSimilarity(ref.get(id), got.get(id)) });
  }
  for (const tool of schema.tools ?? []) {
    const kind = tool.tool;
    const similarity = isScoredKind(kind)
      ? (x: unknown, y: unknown) => objectIoU(kind, x, y)
      : kind === 'point'
        ? pointSimilarity
        : kind === 'ner'
          ? spanSimilarity
          : kind === 'polyline'
            ? lineSimilarity
            : kind === 'segmentation'
              ? zoneSimilarity
              : undefined;
    if (!similarity) continue;
    const a = reference.tools.filter((o) => o.schemaId === tool.schemaId);
    const b = answer.tools.filter((o) => o.schemaId === tool.schemaId);
    if (a.length === 0 && b.length === 0) continue;
    const matches = bestMatch(a, b, similarity);
    const byRef = new Map(matches.map((m) => [m.i, m]));
    const objects = a.map((o, i) => {
      const m = byRef.get(i);
      return { referenceId: o.objectId, objectId: m ? b[m.j]?.objectId : null, similarity: m?.similarity ?? 0 };
    });
    const sum = matches.reduce((s, m) => s + m.similarity, 0);
    const score = sum / Math.max(a.length, b.length);
    items.push({ schemaId: tool.schemaId, kind: 'object', score, objects, extra: b.length - matches.length });
  }
  const mean = items.length === 0 ? 1 : items.reduce((s, i) => s + i.score, 0) / items.length;
  return { score: Math.round(mean * 100 * 1000) / 1000, items };
}
