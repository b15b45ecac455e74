import { randomHex } from '../ids.js';
import type { FieldError } from '../errors.js';
import type { CategorySchema, Classification } from '../schemas/category-schema.js';
import type { TaskAnswer } from './types.js';
import { checkSegmentation } from './zones.js';
import { checkOverlaps, checkPctEntry, checkPointLabels, type PctRules } from './pct-answer.js';
import { checkPctClassifications, checkToolSizes } from './pct-ontology-rules.js';
import { type OverlapRule, settleOverlaps, type ZonesValue } from '../shared/overlap.js';

export interface AnswerInput {
  tools?: unknown[] | undefined;
  /** Alias of `tools` sent by some clients. */
  objects?: unknown[] | undefined;
  classifications?: unknown[] | undefined;
  relations?: unknown[] | undefined;
  /** Point labels of a point-cloud task in segmentation mode (run-length per frame). */
  pointLabels?: unknown;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isPoint = (v: unknown) => Array.isArray(v) && v.length >= 2 && isNum(v[0]) && isNum(v[1]);
const hasNums = (v: unknown, keys: string[]) =>
  !!v && typeof v === 'object' && keys.every((k) => isNum((v as Record<string, unknown>)[k]));

const PAGE_RECT = ['x1', 'y1', 'x2', 'y2', 'width', 'height'];
const isPageRect = (v: unknown) => {
  if (!hasNums(v, PAGE_RECT)) return false;
  const r = v as Record<string, number>;
  return r.x1! <= r.x2! && r.y1! <= r.y2! && r.width! > 0 && r.height! > 0;
};
/** A mark on a PDF (DECISIONS): where on which page, and the words' text or the area's picture. */
function isPdfMark(v: unknown): boolean {
  if (!v || typeof v !== 'object') return false;
  const { position, content } = v as { position?: Record<string, unknown>; content?: unknown };
  if (!position || typeof position !== 'object') return false;
  const page = position.pageNumber;
  if (!Number.isInteger(page) || (page as number) < 1) return false;
  if (!isPageRect(position.boundingRect)) return false;
  if (!Array.isArray(position.rects) || !position.rects.every(isPageRect)) return false;
  if (content === undefined) return true;
  if (!content || typeof content !== 'object' || Array.isArray(content)) return false;
  const { text, image } = content as { text?: unknown; image?: unknown };
  return (text === undefined || typeof text === 'string') && (image === undefined || typeof image === 'string');
}

/** Geometry each tool kind carries under its own key; kinds not listed carry free-form data. */
const GEOMETRY: Record<string, { check: (v: unknown) => boolean; shape: string }> = {
  'bounding-box': { check: (v) => hasNums(v, ['x', 'y', 'width', 'height']), shape: '{x, y, width, height}' },
  'rotated-bounding-box': {
    check: (v) => hasNums(v, ['x', 'y', 'width', 'height', 'rotation']),
    shape: '{x, y, width, height, rotation}',
  },
  polygon: {
    check: (v) => Array.isArray(v) && v.length >= 3 && v.every(isPoint),
    shape: '[[x, y], ...] (3 points or more)',
  },
  polyline: {
    check: (v) => Array.isArray(v) && v.length >= 2 && v.every(isPoint),
    shape: '[[x, y], ...] (2 points or more)',
  },
  point: { check: isPoint, shape: '[x, y]' },
  ner: {
    check: (v) => hasNums(v, ['start', 'end']) && (v as { start: number }).start <= (v as { end: number }).end,
    shape: '{start, end} with start <= end',
  },
  angle: {
    check: (v) => {
      if (!v || typeof v !== 'object') return false;
      const { vertex, p1, p2, angle } = v as Record<string, unknown>;
      return isPoint(vertex) && isPoint(p1) && isPoint(p2) && isNum(angle) && angle >= 0 && angle <= 360;
    },
    shape: '{vertex: [x, y], p1: [x, y], p2: [x, y], angle} with angle in degrees (0 to 360)',
  },
  pdf: {
    check: isPdfMark,
    shape:
      '{position: {boundingRect, rects: [...], pageNumber (from 1)}, content: {text} or {image}}, each rect {x1, y1, x2, y2, width, height} with x1 <= x2 and y1 <= y2',
  },
};

/** Every classification schemaId of the ontology, at any depth (tools' and options' children too). */
function classificationIds(schema: CategorySchema): Set<string> {
  const ids = new Set<string>();
  const walk = (list: readonly Classification[] | undefined) => {
    for (const c of list ?? []) {
      ids.add(c.schemaId);
      walk(c.classifications);
      for (const o of c.options ?? []) walk(o.children);
    }
  };
  walk(schema.classifications);
  for (const t of schema.tools ?? []) walk(t.classifications);
  return ids;
}

/**
 * The number of frames (videos: metadata.frameTotal) or pages (paged assets: metadata.pageTotal)
 * an asset declares, when its metadata says so.
 */
export function framesOfAsset(metadata: string | null | undefined): number | undefined {
  if (!metadata) return undefined;
  try {
    const m = JSON.parse(metadata) as { frameTotal?: unknown; pageTotal?: unknown };
    const whole = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
    if (whole(m.frameTotal)) return m.frameTotal;
    return whole(m.pageTotal) ? m.pageTotal : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An asset's frames: its metadata's count, else the length of its dataset (a point cloud's lidar
 * frames, a set of images); undefined when neither says.
 */
export function frameCountOf(
  asset: { metadata: string | null; dataset: string | null } | undefined,
): number | undefined {
  const counted = framesOfAsset(asset?.metadata);
  if (counted !== undefined || !asset?.dataset) return counted;
  try {
    const list = JSON.parse(asset.dataset) as unknown;
    return Array.isArray(list) && list.length > 0 ? list.length : undefined;
  } catch {
    return undefined;
  }
}

/** `page` (frame or page counted from 0) and `interpolationStopped` of one answer entry. */
function checkFrame(entry: Record<string, unknown>, field: string, frames: number | undefined, errors: FieldError[]) {
  const page = entry.page;
  if (page !== undefined) {
    if (typeof page !== 'number' || !Number.isInteger(page) || page < 0) {
      errors.push({
        field: `${field}.page`,
        message: 'must be a whole number from 0 (the frame or page counted from 0)',
      });
    } else if (frames !== undefined && page >= frames) {
      errors.push({
        field: `${field}.page`,
        message: `must be below ${frames}, the asset's frame or page count (counted from 0)`,
      });
    }
  }
  if (entry.interpolationStopped !== undefined && typeof entry.interpolationStopped !== 'boolean') {
    errors.push({ field: `${field}.interpolationStopped`, message: 'must be true or false' });
  }
}

/** A pdf mark's `pageNumber` (counted from 1) within the document's pages, when their count is known. */
function checkPageNumber(mark: unknown, field: string, pages: number | undefined, errors: FieldError[]) {
  const pageNumber = (mark as { position: { pageNumber: number } }).position.pageNumber;
  if (pages !== undefined && pageNumber > pages) {
    errors.push({
      field: `${field}.position.pageNumber`,
      message: `must be at most ${pages}, the document's page count (pages counted from 1)`,
    });
  }
}

function isEmptyAnswer(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

function objectsOf(list: unknown[] | undefined, field: string, errors: FieldError[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const [i, item] of (list ?? []).entries()) {
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      errors.push({ field: `${field}[${i}]`, message: 'must be an object' });
    } else if (typeof (item as { schemaId?: unknown }).schemaId !== 'string') {
      errors.push({ field: `${field}[${i}].schemaId`, message: 'is required' });
    } else out.push(item as Record<string, unknown>);
  }
  return out;
}

/**
 * The project's `segmentationOverlap` on the answer's segmentation objects (in their order, the
 * order they were drawn): each overlap is repaired by cutting the losing object; an object left
 * with nothing is refused, naming it and the object that covers it.
 */
function settleZones(
  zoned: { obj: Record<string, unknown>; field: string }[],
  rule: OverlapRule,
  errors: FieldError[],
) {
  const layered = zoned.map(({ obj }) => ({
    value: obj.segmentation as ZonesValue,
    page: typeof obj.page === 'number' ? obj.page : undefined,
  }));
  settleOverlaps(layered, rule).forEach((s, i) => {
    const { obj, field } = zoned[i]!;
    if (s.covered) {
      const other = zoned[s.by!]!.field;
      errors.push({
        field: `${field}.segmentation`,
        message: `lies entirely under ${other}, which wins where they overlap (the project's segmentationOverlap is ${rule}); remove one of them`,
      });
    } else if (s.cut) obj.segmentation = s.value;
  });
}

/**
 * Checks an answer against the ontology: each schemaId exists with the right kind and
 * geometry. With `submit`, required tools and classifications must be answered. With `frames`
 * (the asset's frame or page count), entries' `page` must lie within it.
 */
export function validateAnswer(
  input: AnswerInput,
  schema: CategorySchema,
  opts: { submit: boolean; frames?: number | undefined; pct?: PctRules | undefined; overlap?: OverlapRule | undefined },
  base = 'answer',
): { value: TaskAnswer; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const toolField = input.tools === undefined && input.objects !== undefined ? `${base}.objects` : `${base}.tools`;
  const tools = objectsOf(input.tools ?? input.objects, toolField, errors);
  const classifications = objectsOf(input.classifications, `${base}.classifications`, errors);
  const relations = objectsOf(input.relations, `${base}.relations`, errors);
  const toolKinds = new Map((schema.tools ?? []).map((t) => [t.schemaId, t.tool]));
  const pctTools = new Map((schema.tools ?? []).filter((t) => t.tool === 'pct').map((t) => [t.schemaId, t]));
  const pctEntries: { obj: Record<string, unknown>; field: string }[] = [];
  const zoned: { obj: Record<string, unknown>; field: string }[] = [];
  const relationIds = new Set((schema.relations ?? []).map((r) => r.schemaId));
  const classIds = classificationIds(schema);

  tools.forEach((obj, i) => {
    const kind = toolKinds.get(obj.schemaId as string);
    if (!kind)
      return errors.push({
        field: `${toolField}[${i}].schemaId`,
        message: 'no tool of the ontology has this schemaId',
      });
    if (kind === 'segmentation') {
      const checked = checkSegmentation(obj.segmentation, `${toolField}[${i}].segmentation`);
      if (checked.value) obj.segmentation = checked.value;
      if (checked.value) zoned.push({ obj, field: `${toolField}[${i}]` });
      errors.push(...checked.errors);
    }
    if (kind === 'pct') {
      const field = `${toolField}[${i}]`;
      const tool = pctTools.get(obj.schemaId as string);
      checkPctEntry(obj, field, tool?.markingTools ?? undefined, opts.pct, errors);
      if (tool) checkToolSizes(obj, field, tool, errors);
      pctEntries.push({ obj, field });
    }
    const geometry = GEOMETRY[kind];
    if (geometry && !geometry.check(obj[kind])) {
      errors.push({ field: `${toolField}[${i}].${kind}`, message: `must be ${geometry.shape}` });
    }
    checkFrame(obj, `${toolField}[${i}]`, opts.frames, errors);
    if (kind === 'pdf' && geometry?.check(obj.pdf))
      checkPageNumber(obj.pdf, `${toolField}[${i}].pdf`, opts.frames, errors);
    if (obj.objectId === undefined) obj.objectId = randomHex(8);
    else if (typeof obj.objectId !== 'string')
      errors.push({ field: `${toolField}[${i}].objectId`, message: 'must be a string' });
    return undefined;
  });
  classifications.forEach((c, i) => {
    checkFrame(c, `${base}.classifications[${i}]`, opts.frames, errors);
    if (!classIds.has(c.schemaId as string)) {
      errors.push({
        field: `${base}.classifications[${i}].schemaId`,
        message: 'no classification of the ontology has this schemaId',
      });
    }
  });
  relations.forEach((r, i) => {
    if (!relationIds.has(r.schemaId as string)) {
      errors.push({
        field: `${base}.relations[${i}].schemaId`,
        message: 'no relation of the ontology has this schemaId',
      });
    }
  });
  if (opts.pct && !opts.pct.allowOverlapping) checkOverlaps(pctEntries, errors);
  if (opts.pct) checkPctClassifications(schema, pctEntries, classifications, base, opts.pct, errors);
  if (opts.overlap && opts.overlap !== 'allow' && !errors.length) settleZones(zoned, opts.overlap, errors);
  const pointLabels = checkPointLabels(
    input.pointLabels,
    `${base}.pointLabels`,
    new Set(pctTools.keys()),
    opts.frames,
    opts.pct,
    opts.submit,
    errors,
  );
  if (opts.submit) {
    for (const c of schema.classifications ?? []) {
      if (c.required && !classifications.some((a) => a.schemaId === c.schemaId && !isEmptyAnswer(a.answer))) {
        errors.push({
          field: `${base}.classifications`,
          message: `the required classification "${c.schemaId}" is not answered`,
        });
      }
    }
    for (const t of schema.tools ?? []) {
      if (t.required && !tools.some((o) => o.schemaId === t.schemaId)) {
        errors.push({ field: toolField, message: `the required tool "${t.schemaId}" has no object` });
      }
    }
  }
  const value: TaskAnswer = pointLabels
    ? { tools, classifications, relations, pointLabels }
    : { tools, classifications, relations };
  return { value, errors };
}
