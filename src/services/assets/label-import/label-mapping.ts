import type { CategorySchema, Classification, Tool } from '../../../schemas/category-schema.js';
import { rotatedBoxCorners } from '../../../workflow/consensus/geometry.js';
import type { ImportedImage, ImportedObject, ImportedShape } from './imported-labels.js';
import type { ImportReport } from './import-report.js';
import { traceZones } from '../../../shared/mask-outlines.js';

/*
 * Imported objects onto the project's ontology: a category finds its tool by title or schemaId
 * (any case), preferring the tool of the shape's own kind; shapes convert where the tool's kind
 * asks (a box into a polygon tool becomes its corners, a mask into a segmentation tool its
 * traced zones). Attributes and image answers find their questions by title; an option is
 * found by its value or schemaId. Boxes are clipped to the image when its size is known.
 */

type Pt = [number, number];
type Json = Record<string, unknown>;

/** Which tool kinds take which imported shapes. */
const TAKES: Record<string, ImportedShape['kind'][]> = {
  'bounding-box': ['bounding-box', 'rotated-bounding-box', 'polygon', 'segmentation', 'mask'],
  'rotated-bounding-box': ['rotated-bounding-box', 'bounding-box', 'polygon'],
  polygon: ['polygon', 'bounding-box', 'rotated-bounding-box', 'segmentation', 'mask'],
  segmentation: ['segmentation', 'polygon', 'mask', 'bounding-box', 'rotated-bounding-box'],
  polyline: ['polyline'],
  point: ['point'],
  ner: ['ner'],
  brush: ['mask'],
};

const norm = (s: string) => s.trim().toLowerCase();

export class LabelMapper {
  private readonly tools = new Map<string, Tool[]>();
  private readonly questions = new Map<string, Classification>();

  constructor(
    schema: CategorySchema,
    private readonly report: ImportReport,
  ) {
    for (const t of schema.tools ?? []) {
      for (const name of new Set([norm(t.title), norm(t.schemaId)])) {
        const list = this.tools.get(name) ?? [];
        list.push(t);
        this.tools.set(name, list);
      }
    }
    for (const q of schema.classifications ?? []) this.questions.set(norm(q.title), q);
  }

  /** The tool a category's shape goes to, or undefined (reported). */
  private toolFor(o: ImportedObject): Tool | undefined {
    const candidates = this.tools.get(norm(o.category));
    if (!candidates) {
      this.report.unmatchedCategory(o.category);
      return undefined;
    }
    const exact = candidates.find((t) => t.tool === o.shape.kind);
    const fits = exact ?? candidates.find((t) => TAKES[t.tool]?.includes(o.shape.kind));
    if (!fits) this.report.skip(`${o.shape.kind} shapes of "${o.category}", whose tool is a ${candidates[0]?.tool}`);
    return fits;
  }

  /** Answers of a list of questions, by title. */
  answers(questions: readonly Classification[] | undefined, given: Record<string, unknown>, where: string): Json[] {
    const byTitle = new Map((questions ?? []).map((q) => [norm(q.title), q]));
    const out: Json[] = [];
    for (const [title, value] of Object.entries(given)) {
      const q = byTitle.get(norm(title)) ?? (questions ? undefined : this.questions.get(norm(title)));
      if (!q) {
        this.report.skip(`${where} answers to "${title}", which is no question of the ontology`);
        continue;
      }
      out.push({ schemaId: q.schemaId, answer: answerOf(q, value) });
    }
    return out;
  }

  /** The image's objects and answers as an answer, converted and clipped. */
  answer(image: ImportedImage, size: { width?: number | undefined; height?: number | undefined }) {
    const tools: Json[] = [];
    let brush: { tool: Tool; shape: Extract<ImportedShape, { kind: 'mask' }> }[] = [];
    for (const o of image.objects) {
      const tool = this.toolFor(o);
      if (!tool) continue;
      if (tool.tool === 'brush' && o.shape.kind === 'mask') {
        brush = [...brush, { tool, shape: o.shape }];
        continue;
      }
      const geometry = convert(o.shape, tool.tool, size, this.report);
      if (geometry === undefined) continue;
      const obj: Json = { schemaId: tool.schemaId, [tool.tool]: geometry };
      if (o.objectId) obj.objectId = o.objectId;
      if (o.page !== undefined) obj.page = o.page;
      if (o.stopped) obj.interpolationStopped = true;
      const nested = this.answers(tool.classifications ?? [], o.attributes, 'object');
      if (nested.length) obj.classifications = nested;
      tools.push(obj);
      this.report.objects++;
    }
    const classifications = this.answers(undefined, image.classifications, 'image');
    return { tools, classifications, brush };
  }
}

/** An answer by the question's kind: option values become option ids. */
function answerOf(q: Classification, value: unknown): unknown {
  const option = (v: unknown) => {
    const text = norm(String(v));
    return q.options?.find((o) => norm(o.value) === text || norm(o.schemaId) === text)?.schemaId ?? v;
  };
  if (q.tool === 'checkbox' || q.tool === 'multi-dropdown') {
    const list = Array.isArray(value)
      ? value
      : String(value)
          .split(',')
          .filter((s) => s.trim());
    return list.map((v) => option(typeof v === 'string' ? v.trim() : v));
  }
  if (q.tool === 'boolean') return value === true || norm(String(value)) === 'true';
  if (q.tool === 'text') return Array.isArray(value) ? value.join(',') : String(value);
  return option(Array.isArray(value) ? value[0] : value);
}

const clamp = (v: number, max: number | undefined) => (max === undefined ? v : Math.min(max, Math.max(0, v)));

function enclosing(points: readonly Pt[]) {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/** A rotated box from four corners in order (the first is the top-left before rotation). */
function rotatedFromCorners(points: readonly Pt[], rotation?: number) {
  const [a, b, c] = points as [Pt, Pt, Pt];
  const width = Math.hypot(b[0] - a[0], b[1] - a[1]);
  const height = Math.hypot(c[0] - b[0], c[1] - b[1]);
  const cx = points.reduce((s, p) => s + p[0], 0) / points.length;
  const cy = points.reduce((s, p) => s + p[1], 0) / points.length;
  const angle = rotation ?? (Math.atan2(b[1] - a[1], b[0] - a[0]) * 180) / Math.PI;
  return { x: cx - width / 2, y: cy - height / 2, width, height, rotation: angle };
}

function outlineOf(shape: ImportedShape): Pt[] | undefined {
  switch (shape.kind) {
    case 'bounding-box': {
      const b = shape.box;
      return [
        [b.x, b.y],
        [b.x + b.width, b.y],
        [b.x + b.width, b.y + b.height],
        [b.x, b.y + b.height],
      ];
    }
    case 'rotated-bounding-box':
      return rotatedBoxCorners(shape.box).map(([x, y]) => [x, y]);
    case 'polygon':
      return shape.points;
    case 'segmentation':
      return shape.zones[0]?.region;
    case 'mask':
      return traceZones(shape.width, shape.height, shape.pixels)[0]?.region;
    default:
      return undefined;
  }
}

/** The shape as the tool kind's geometry, or undefined (reported). */
function convert(
  shape: ImportedShape,
  kind: string,
  size: { width?: number | undefined; height?: number | undefined },
  report: ImportReport,
): unknown {
  const { width: w, height: h } = size;
  if (kind === 'bounding-box') {
    const b = shape.kind === 'bounding-box' ? shape.box : enclosing(outlineOf(shape) ?? []);
    if (!Number.isFinite(b.width)) return report.skip('shapes with no outline');
    const x1 = clamp(b.x, w);
    const y1 = clamp(b.y, h);
    const x2 = clamp(b.x + b.width, w);
    const y2 = clamp(b.y + b.height, h);
    if (x2 <= x1 || y2 <= y1) return report.skip('boxes entirely outside the image');
    if (x1 !== b.x || y1 !== b.y || x2 !== b.x + b.width || y2 !== b.y + b.height) report.clipped++;
    return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
  }
  if (kind === 'rotated-bounding-box') {
    if (shape.kind === 'rotated-bounding-box') return shape.box;
    if (shape.kind === 'bounding-box') return { ...shape.box, rotation: 0 };
    const pts = outlineOf(shape);
    return pts?.length === 4
      ? rotatedFromCorners(pts)
      : report.skip('polygons of other than four corners for rotated boxes');
  }
  if (kind === 'polygon' || kind === 'segmentation') {
    const zones =
      shape.kind === 'segmentation'
        ? shape.zones
        : shape.kind === 'mask'
          ? traceZones(shape.width, shape.height, shape.pixels)
          : [{ region: outlineOf(shape) ?? [], holes: [] }];
    const clip = (ring: Pt[]): Pt[] => ring.map(([x, y]) => [clamp(x, w), clamp(y, h)]);
    const kept = zones.filter((z) => z.region.length >= 3);
    if (!kept.length) return report.skip('masks or polygons with no area');
    if (kind === 'polygon') {
      if (kept.length > 1 || kept[0]?.holes.length) report.skip('parts or holes of masks imported into a polygon tool');
      return clip(kept[0]?.region ?? []);
    }
    return { zones: kept.map((z) => ({ region: clip(z.region), holes: z.holes.map(clip) })) };
  }
  if (shape.kind === 'point') {
    const [x, y] = shape.point;
    if (w !== undefined && h !== undefined && (x < 0 || y < 0 || x > w || y > h))
      return report.skip('points outside the image');
    return shape.point;
  }
  if (shape.kind === 'polyline') return shape.points.map(([x, y]) => [clamp(x, w), clamp(y, h)]);
  if (shape.kind === 'ner') return { start: shape.start, end: shape.end };
  return report.skip(`${shape.kind} shapes for ${kind} tools`);
}

export { rotatedFromCorners };
