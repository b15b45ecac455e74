import { invalid, type FieldError } from '../../errors.js';
import { parseQueryBoolean } from '../../schemas/common.js';
import type { ExportQuery } from '../../schemas/export.js';
import type { Stage } from '../../schemas/stage.js';
import type { TimeRange } from '../../store/repositories/export.repository.js';
import { type DatasetFormat, isDatasetFormat } from './datasets/dataset-formats.js';

/** What an export request asks for, checked against the project. */
export interface ExportPlan {
  type: 'task' | 'issue';
  format: 'json' | 'ndjson' | DatasetFormat;
  /** Stage ids; undefined = every stage. */
  stageIds?: string[] | undefined;
  /** Batch ids; undefined = every task. */
  batchIds?: string[] | undefined;
  status?: string | undefined;
  createdAt?: TimeRange | undefined;
  updatedAt?: TimeRange | undefined;
  includeMetadata: boolean;
  includeHistory: boolean;
  /** Segmentation objects keep their `segmentation` (zones) in JSON exports only when set. */
  includeSegmentationPoints: boolean;
  /** Segmentation and polygon objects of JSON exports get `masks: [signed link of GET /mask]`. */
  includeMask: boolean;
  /** Video answers as stored (keyframes and stop entries) instead of expanded to every frame. */
  includeOnlyKeyFrames: boolean;
  /** Kinds of task exported (tasks only); ['default'] unless `taskTypes` says otherwise. */
  taskTypes: TaskType[];
}

export const TASK_TYPES = ['default', 'consensus', 'benchmark'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

const TASK_STATUSES = ['TODO', 'Completed', 'Archived'];
const ISSUE_STATUSES = ['Open', 'Resolved'];
/** What the Python client sends when it has no value (`type=None`), read as absent. */
const ABSENT = new Set(['', 'none', 'null', 'undefined']);

/**
 * A list parameter: a JSON array of strings, a JSON string (`stage="Complete"` from older
 * clients), or plain text taken as one value.
 */
function stringList(raw: string, field: string, errors: FieldError[]): string[] | undefined {
  const text = raw.trim();
  if (!text.startsWith('[') && !text.startsWith('"')) return text ? [text] : [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    errors.push({ field, message: 'must be a JSON list of strings, e.g. ["Complete"]' });
    return undefined;
  }
  if (typeof parsed === 'string') return [parsed];
  if (!Array.isArray(parsed) || !parsed.every((v) => typeof v === 'string') || parsed.length > 10_000) {
    errors.push({ field, message: 'must be a JSON list of strings, e.g. ["Complete"]' });
    return undefined;
  }
  return parsed as string[];
}

/** `{"$gt": date, "$lt": date}` (also `$gte`, `$lte`), dates normalized to ISO with ms. */
function timeRange(raw: string, field: string, errors: FieldError[]): TimeRange | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    errors.push({ field, message: 'must be a JSON object such as {"$gt": "2024-01-01T00:00:00.000Z"}' });
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    errors.push({ field, message: 'must be a JSON object such as {"$gt": "2024-01-01T00:00:00.000Z"}' });
    return undefined;
  }
  const range: TimeRange = {};
  for (const [op, value] of Object.entries(parsed)) {
    if (op !== '$gt' && op !== '$gte' && op !== '$lt' && op !== '$lte') {
      errors.push({ field: `${field}.${op}`, message: 'unknown operator; use $gt, $gte, $lt, $lte' });
      continue;
    }
    const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(time)) errors.push({ field: `${field}.${op}`, message: 'must be an ISO 8601 date' });
    else range[op] = new Date(time).toISOString();
  }
  return range;
}

/** Each reference by id first, then by name; unknown ones are errors naming their index. */
function resolveRefs<T extends { id: string; name: string }>(
  refs: string[],
  known: readonly T[],
  field: string,
  what: string,
  errors: FieldError[],
): string[] {
  const ids = new Set<string>();
  refs.forEach((ref, i) => {
    const hit = known.find((k) => k.id === ref) ?? known.find((k) => k.name === ref);
    if (hit) ids.add(hit.id);
    else errors.push({ field: `${field}[${i}]`, message: `no ${what} "${ref}" in this project` });
  });
  return [...ids];
}

/** Reads the query against the project's stages and batches; every bad part is a 400 naming it. */
export function exportPlan(
  q: ExportQuery,
  stages: readonly Stage[],
  batches: readonly { id: string; name: string }[],
): ExportPlan {
  const errors: FieldError[] = [];
  const rawType = (q.type ?? '').trim().toLowerCase();
  const type = ABSENT.has(rawType) ? 'task' : rawType;
  if (type !== 'task' && type !== 'issue') errors.push({ field: 'type', message: 'must be task or issue' });
  const plan: ExportPlan = {
    type: type === 'issue' ? 'issue' : 'task',
    format: q.format ?? 'json',
    includeMetadata: parseQueryBoolean(q.includeMetadata, true),
    includeHistory: parseQueryBoolean(q.includeHistory, true),
    includeSegmentationPoints: parseQueryBoolean(q.includeSegmentationPoints, false),
    includeMask: parseQueryBoolean(q.includeMask, false),
    includeOnlyKeyFrames: false,
    taskTypes: ['default'],
  };
  if (q.includeOnlyKeyFrames !== undefined && !ABSENT.has(q.includeOnlyKeyFrames.trim().toLowerCase())) {
    const flag = q.includeOnlyKeyFrames.trim().toLowerCase();
    if (flag === 'true' || flag === 'false') plan.includeOnlyKeyFrames = flag === 'true';
    else errors.push({ field: 'includeOnlyKeyFrames', message: 'must be true or false' });
  }
  if (plan.type === 'issue' && isDatasetFormat(plan.format)) {
    errors.push({ field: 'format', message: 'issue exports are json or ndjson' });
  }
  if (q.status !== undefined && !ABSENT.has(q.status.trim().toLowerCase())) {
    const allowed = plan.type === 'task' ? TASK_STATUSES : ISSUE_STATUSES;
    if (allowed.includes(q.status)) plan.status = q.status;
    else errors.push({ field: 'status', message: `must be one of ${allowed.join(', ')} for ${plan.type} exports` });
  }
  if (q.createdAt !== undefined) plan.createdAt = timeRange(q.createdAt, 'createdAt', errors);
  if (q.updatedAt !== undefined) plan.updatedAt = timeRange(q.updatedAt, 'updatedAt', errors);
  // Stages and batches select tasks; an issue export ignores them (the client sends no stage then).
  // An empty list selects nothing out, like an omitted one: exporting nothing is never the intent.
  if (plan.type === 'task' && q.stage !== undefined) {
    const refs = stringList(q.stage, 'stage', errors);
    const named = stages.map((s) => ({ id: s.id, name: s.name ?? s.id }));
    if (refs?.length) plan.stageIds = resolveRefs(refs, named, 'stage', 'stage', errors);
  }
  if (plan.type === 'task' && q.batches !== undefined) {
    const refs = stringList(q.batches, 'batches', errors);
    if (refs?.length) plan.batchIds = resolveRefs(refs, batches, 'batches', 'batch', errors);
  }
  if (plan.type === 'task' && q.taskTypes !== undefined && !ABSENT.has(q.taskTypes.trim().toLowerCase())) {
    const refs = stringList(q.taskTypes, 'taskTypes', errors) ?? [];
    refs.forEach((ref, i) => {
      if (!(TASK_TYPES as readonly string[]).includes(ref))
        errors.push({ field: `taskTypes[${i}]`, message: `must be one of ${TASK_TYPES.join(', ')}` });
    });
    if (refs.length) plan.taskTypes = [...new Set(refs as TaskType[])];
  }
  if (errors.length) throw invalid(errors);
  return plan;
}
