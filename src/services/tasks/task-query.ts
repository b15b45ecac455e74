import { type FieldError, invalid, invalidField } from '../../errors.js';
import type { Engine } from '../../store/db.js';
import {
  type Condition,
  FILTER_FIELDS,
  type FilterField,
  FLAG_FIELDS,
  OPERATORS,
  SORT_COLUMNS,
  type SortKey,
  type TaskFilter,
  TEXT_FIELDS,
} from '../../store/repositories/task.repository.js';

/**
 * The `filter` and `sort` query values of task listings (DECISIONS section 4 and the [client]
 * additions), parsed into the repository's conditions with every bad part named.
 */

type Scalar = string | number | null;
const MAX_PATTERN = 256;
/** `(x+)+`, `(a|b*)*`...: a quantified group that itself repeats, the shape of runaway matching. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[*+}](?:[^()\\]|\\.)*\)\s*[*+{]/;
const META = new Set([...'.*+?()[]{}|^$\\']);

const isScalar = (v: unknown): v is Scalar =>
  v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
const isFlag = (field: string) => (FLAG_FIELDS as readonly string[]).includes(field);

/** `^` then literal characters (metacharacters escaped with `\`): the prefix, else undefined. */
export function literalPrefix(pattern: string): string | undefined {
  if (!pattern.startsWith('^')) return undefined;
  let out = '';
  for (let i = 1; i < pattern.length; i++) {
    const ch = pattern.charAt(i);
    if (ch === '\\') {
      const next = pattern.charAt(i + 1);
      if (!META.has(next) && next !== '/' && next !== '-') return undefined;
      out += next;
      i++;
    } else if (META.has(ch)) return undefined;
    else out += ch;
  }
  return out.length ? out : undefined;
}

function regexCondition(
  field: string,
  raw: Record<string, unknown>,
  engine: Engine,
  errors: FieldError[],
): Condition | undefined {
  const path = `filter.${field}.$regex`;
  const pattern = raw.$regex;
  const options = raw.$options ?? '';
  if (!(TEXT_FIELDS as readonly string[]).includes(field)) {
    errors.push({ field: path, message: `applies to text fields only: ${TEXT_FIELDS.join(', ')}` });
    return undefined;
  }
  if (typeof pattern !== 'string' || pattern.length === 0 || pattern.length > MAX_PATTERN) {
    errors.push({ field: path, message: `must be a pattern of 1 to ${MAX_PATTERN} characters` });
    return undefined;
  }
  if (options !== '' && options !== 'i') {
    errors.push({ field: `filter.${field}.$options`, message: 'may only be "i" (case-insensitive)' });
    return undefined;
  }
  try {
    new RegExp(pattern);
  } catch {
    errors.push({ field: path, message: 'is not a valid regular expression' });
    return undefined;
  }
  if (NESTED_QUANTIFIER.test(pattern) || /\\[1-9]/.test(pattern)) {
    errors.push({ field: path, message: 'may not repeat a repeated group or use back-references' });
    return undefined;
  }
  const ignoreCase = options === 'i';
  return { op: '$regex', value: pattern, ignoreCase, prefix: ignoreCase ? undefined : literalPrefix(pattern), engine };
}

/** A value as stored: flags as 1/0, reviewStatus `Todo` (never reviewed) as NULL. */
function storedValue(field: FilterField | 'batches', v: unknown): Scalar | undefined {
  if (isFlag(field)) return typeof v === 'boolean' ? (v ? 1 : 0) : undefined;
  if (!isScalar(v)) return undefined;
  return field === 'reviewStatus' && v === 'Todo' ? null : v;
}

function operatorCondition(
  field: FilterField | 'batches',
  op: string,
  value: unknown,
  errors: FieldError[],
): Condition | undefined {
  const path = `filter.${field}.${op}`;
  const expected = isFlag(field) ? 'must be true or false' : 'must be a string, a number or null';
  if (op === '$exists') {
    if (typeof value === 'boolean') return { op, value };
    errors.push({ field: path, message: 'must be true or false' });
  } else if (isFlag(field) && op !== '$eq' && op !== '$ne') {
    errors.push({ field: path, message: 'a yes/no field takes $eq, $ne or $exists' });
  } else if (op === '$in' || op === '$nin') {
    const values = Array.isArray(value) && value.length <= 10_000 ? value.map((v) => storedValue(field, v)) : undefined;
    if (values && values.every((v) => v !== undefined)) return { op, value: values as Scalar[] };
    errors.push({ field: path, message: `must be an array of values (each ${expected.slice(8)})` });
  } else if (op !== '$regex') {
    const stored = storedValue(field, value);
    if (stored !== undefined) return { op: op as Exclude<Condition['op'], '$regex' | '$exists'>, value: stored };
    errors.push({ field: path, message: expected });
  }
  return undefined;
}

function conditionsOf(field: FilterField | 'batches', raw: unknown, engine: Engine, errors: FieldError[]): Condition[] {
  const plain = storedValue(field, raw);
  if (plain !== undefined || (raw === null && !isFlag(field))) return [{ op: '$eq', value: plain ?? null }];
  if (Array.isArray(raw) || typeof raw !== 'object' || raw === null) {
    errors.push({ field: `filter.${field}`, message: 'must be a value or an object of operators' });
    return [];
  }
  const ops = raw as Record<string, unknown>;
  const out: Condition[] = [];
  for (const [op, value] of Object.entries(ops)) {
    if (op === '$options') {
      if (!('$regex' in ops)) errors.push({ field: `filter.${field}.$options`, message: 'goes with $regex' });
    } else if (!(OPERATORS as readonly string[]).includes(op)) {
      errors.push({ field: `filter.${field}.${op}`, message: `unknown operator; use ${OPERATORS.join(', ')}` });
    } else {
      const c =
        op === '$regex' ? regexCondition(field, ops, engine, errors) : operatorCondition(field, op, value, errors);
      if (c) out.push(c);
    }
  }
  return out;
}

/** Parses the `filter` JSON of task listings, naming each bad part. */
export function parseTaskFilter(raw: string | undefined, base: TaskFilter, engine: Engine): TaskFilter {
  if (raw === undefined || raw.trim() === '') return base;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidField('filter', 'must be a JSON object');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw invalidField('filter', 'must be a JSON object');
  const errors: FieldError[] = [];
  const out: TaskFilter = { ...base, columns: [...base.columns], batches: [...base.batches] };
  for (const [key, value] of Object.entries(parsed)) {
    if (key === 'batches') out.batches.push(...conditionsOf('batches', value, engine, errors));
    else if ((FILTER_FIELDS as readonly string[]).includes(key)) {
      out.columns.push({
        field: key as FilterField,
        conditions: conditionsOf(key as FilterField, value, engine, errors),
      });
    } else
      errors.push({
        field: `filter.${key}`,
        message: `cannot filter on this; use ${[...FILTER_FIELDS, 'batches'].join(', ')}`,
      });
  }
  if (errors.length) throw invalid(errors);
  return out;
}

const MAX_SORT_KEYS = 4;

/** `sort`: comma-separated fields, each optionally with `-` (descending); `-createdAt` by default. */
export function parseSort(raw: string | undefined): SortKey[] {
  const parts = (raw ?? '-createdAt').split(',').map((s) => s.trim());
  const keys: SortKey[] = [];
  for (const part of parts) {
    const descending = part.startsWith('-');
    const field = descending ? part.slice(1) : part;
    if (!(field in SORT_COLUMNS)) {
      throw invalidField('sort', `must list ${Object.keys(SORT_COLUMNS).join(', ')}, each optionally with -`);
    }
    if (keys.some((k) => k.field === field)) throw invalidField('sort', `names ${field} twice`);
    keys.push({ field: field as SortKey['field'], descending });
  }
  if (keys.length > MAX_SORT_KEYS) throw invalidField('sort', `may name at most ${MAX_SORT_KEYS} fields`);
  return keys;
}
