import { badRequest, invalidField } from '../../errors.js';

/** No document of the contract nests anywhere near this deep; deeper bodies are refused. */
export const MAX_BODY_DEPTH = 64;

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/**
 * Prepares a parsed body or query for validation:
 * - an optional field sent as null counts as absent (DECISIONS section 1: the Python client's
 *   label-set helpers always send `exportName: null` and the like), so null-valued properties
 *   are removed at every depth; null array elements are left for validation to judge;
 * - NUL characters are refused: PostgreSQL text cannot hold them, and no field needs them.
 */
export function normalizeInput<T>(value: T, path = '', depth = 0): T {
  walk(value, depth, path, []);
  return value;
}

/**
 * normalizeInput below `path`, `keys` being the keys from there to `value`: the path of a
 * refused field is only written out when it is refused (this runs for every imported asset).
 */
function walk(value: unknown, depth: number, path: string, keys: (string | number)[]): void {
  if (depth > MAX_BODY_DEPTH) throw badRequest(`the request nests deeper than ${MAX_BODY_DEPTH} levels`);
  if (typeof value === 'string') {
    if (value.includes('\u0000'))
      throw invalidField(keys.reduce(join, path) || 'body', 'must not contain NUL characters');
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      keys.push(i);
      walk(value[i], depth + 1, path, keys);
      keys.pop();
    }
    return;
  }
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      if (key.includes('\u0000')) {
        throw invalidField(keys.reduce(join, path) || 'body', 'property names must not contain NUL characters');
      }
      if (obj[key] === null) delete obj[key];
      else {
        keys.push(key);
        walk(obj[key], depth + 1, path, keys);
        keys.pop();
      }
    }
  }
}
