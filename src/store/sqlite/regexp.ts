import type SQLite from 'better-sqlite3';

/** Compiled patterns by `flags/pattern`, oldest out first: a listing compiles its pattern once. */
const compiled = new Map<string, RegExp>();
const CACHE_SIZE = 200;

function regexpOf(pattern: string, flags: string): RegExp {
  const key = `${flags}/${pattern}`;
  let re = compiled.get(key);
  if (!re) {
    re = new RegExp(pattern, flags);
    if (compiled.size >= CACHE_SIZE) {
      const oldest = compiled.keys().next().value;
      if (oldest !== undefined) compiled.delete(oldest);
    }
    compiled.set(key, re);
  }
  return re;
}

/**
 * `annotary_regexp(pattern, flags, value)`: 1 when `value` matches, 0 when not or NULL. SQLite
 * has no regular expressions of its own; PostgreSQL uses its `~` operator instead. Patterns are
 * checked (length, no nested quantifiers) before they reach a query: see task filters.
 */
export function registerRegexp(sqlite: SQLite.Database): void {
  sqlite.function('annotary_regexp', { deterministic: true }, (pattern: unknown, flags: unknown, value: unknown) => {
    if (typeof value !== 'string' || typeof pattern !== 'string') return 0;
    return regexpOf(pattern, typeof flags === 'string' ? flags : '').test(value) ? 1 : 0;
  });
}
