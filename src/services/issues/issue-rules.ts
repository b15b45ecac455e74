import type { FieldError } from '../../errors.js';
import type { IssueRow } from '../../store/schema.js';

/**
 * The rules an issue's fields follow (DECISIONS section 6), its view, and the one way
 * `tasks.open_issues_count` is kept exact.
 */

const POSITION_SHAPE = 'must be a stringified [x, y] (images) or a stringified character index (text)';

/** `position` is `"[x, y]"` on images and `"<index>"` on text; anything else is refused. */
export function positionError(raw: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw.trim());
  } catch {
    return POSITION_SHAPE;
  }
  const finite = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  if (Array.isArray(value) && value.length === 2 && value.every(finite)) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return undefined;
  return POSITION_SHAPE;
}

/** The `objectId`s of a task's answer (tools, classifications and relations). */
/** The objectIds of the answer's segmentation objects (masks: an issue on one may keep a point). */
export function maskObjectIds(answer: string): Set<string> {
  const tools = (JSON.parse(answer) as { tools?: unknown }).tools;
  const ids = new Set<string>();
  for (const item of Array.isArray(tools) ? (tools as Record<string, unknown>[]) : []) {
    if (item && typeof item.objectId === 'string' && item.segmentation !== undefined) ids.add(item.objectId);
  }
  return ids;
}

export function answerObjectIds(answer: string): Set<string> {
  const ids = new Set<string>();
  const parsed = JSON.parse(answer) as Record<string, unknown>;
  for (const key of ['tools', 'classifications', 'relations']) {
    const list = parsed[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const id = (item as { objectId?: unknown } | null)?.objectId;
      if (typeof id === 'string') ids.add(id);
    }
  }
  return ids;
}

/**
 * The codes an `errorSchema` declares. Accepted shapes (kept as sent by the project update):
 * `{codes: [...]}` or `{errorCodes: [...]}`, whose items are strings, numbers, or objects naming
 * their code in `code`, `value` or `key` (first found); an item may itself group further codes
 * under `codes`, `errorCodes` or `children` (categories of codes).
 */
export function errorCodesOf(errorSchema: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (node: unknown, depth: number): void => {
    if (depth > 8 || node === null || node === undefined) return;
    if (typeof node === 'string') out.add(node);
    else if (typeof node === 'number' && Number.isFinite(node)) out.add(String(node));
    else if (Array.isArray(node)) node.forEach((n) => walk(n, depth + 1));
    else if (typeof node === 'object') {
      const obj = node as Record<string, unknown>;
      const named = [obj.code, obj.value, obj.key].find((v) => typeof v === 'string' || typeof v === 'number');
      if (named !== undefined) out.add(String(named));
      for (const k of ['codes', 'errorCodes', 'children']) walk(obj[k], depth + 1);
    }
  };
  if (errorSchema && typeof errorSchema === 'object' && !Array.isArray(errorSchema)) {
    const top = errorSchema as Record<string, unknown>;
    walk(top.codes, 1);
    walk(top.errorCodes, 1);
  } else if (Array.isArray(errorSchema)) walk(errorSchema, 1);
  return out;
}

/** An issue's error code: the code itself, or the [client]'s `{category, name, key}` naming it by `key`. */
export type IssueErrorCode = string | { key: string; name?: string | undefined; category?: string | undefined };

export const errorCodeKey = (code: IssueErrorCode): string => (typeof code === 'string' ? code : code.key);

/**
 * Checks issue error codes against the project's settings: any code needs `errorCodesEnabled`,
 * and each (an object: its `key`) must be declared by `errorSchema`; with codes enabled and
 * declared, an issue needs at least one. Answers the codes as sent,
 * the first of each key kept.
 */
export function checkErrorCodes(
  codes: readonly IssueErrorCode[],
  settings: Record<string, unknown>,
  errors: FieldError[],
): IssueErrorCode[] {
  if (codes.length === 0) {
    // A project that uses error codes asks every issue for one (when its schema declares any).
    if (settings.errorCodesEnabled === true && errorCodesOf(settings.errorSchema).size > 0) {
      errors.push({
        field: 'errorCodes',
        message: 'this project asks every issue for one of its error codes (errorSchema)',
      });
    }
    return [];
  }
  if (settings.errorCodesEnabled !== true) {
    errors.push({ field: 'errorCodes', message: 'error codes are not enabled on this project (errorCodesEnabled)' });
    return [];
  }
  const known = errorCodesOf(settings.errorSchema);
  const seen = new Set<string>();
  const out: IssueErrorCode[] = [];
  codes.forEach((code, i) => {
    const key = errorCodeKey(code);
    if (!known.has(key)) {
      const field = typeof code === 'string' ? `errorCodes[${i}]` : `errorCodes[${i}].key`;
      errors.push({ field, message: "is not a code of the project's errorSchema" });
    } else if (!seen.has(key)) {
      seen.add(key);
      out.push(typeof code === 'string' ? code : { ...code });
    }
  });
  return out;
}

export interface IssueComment {
  _id: string;
  content: string;
  createdBy: string;
  createdAt: string;
}

/** The issue record as every issue operation answers it. */
export function issueView(row: IssueRow): Record<string, unknown> {
  return {
    _id: row.id,
    project: row.project_id,
    labelTask: row.task_id,
    asset: row.asset_id,
    stage: row.stage_id,
    content: row.content,
    position: row.position,
    page: row.page,
    objectId: row.object_id,
    errorCodes: JSON.parse(row.error_codes) as IssueErrorCode[],
    pctDetails: row.pct_details === null ? null : (JSON.parse(row.pct_details) as unknown),
    status: row.status,
    comments: JSON.parse(row.comments) as IssueComment[],
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
