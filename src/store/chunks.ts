import { CompiledQuery, type Insertable } from 'kysely';
import type { Executor } from './db.js';
import type { Database } from './schema.js';

/**
 * Bound parameters per statement: under SQLite's 32,766 and PostgreSQL's 65,535, and small enough
 * that a prepared statement (about 80 bytes of native memory a parameter on SQLite) stays small.
 */
const MAX_PARAMS = 10_000;
/** Bulk INSERT texts kept per dialect (a few tables times a few row counts). */
const COMPILED_INSERTS = 64;

/**
 * Bulk INSERT texts by table, columns and row count, per dialect (its adapter: a transaction
 * shares its database's). Compiling a statement of thousands of rows through Kysely builds a
 * node per row and the text piece by piece: a 100,000-asset import spent a third of everything
 * it allocated there, for the same few texts every time.
 */
const compiledInserts = new WeakMap<object, Map<string, string>>();

/**
 * Puts the row's values into `out` from `at`, in `columns` order, when it has exactly those
 * columns in that order, all plain values (no allocation: this runs for every row written).
 */
function plainValues(row: Record<string, unknown>, columns: readonly string[], out: unknown[], at: number): boolean {
  let i = 0;
  for (const key in row) {
    if (key !== columns[i]) return false;
    const v = row[key];
    if (
      v !== null &&
      typeof v !== 'string' &&
      typeof v !== 'number' &&
      typeof v !== 'boolean' &&
      typeof v !== 'bigint'
    ) {
      return false;
    }
    out[at + i++] = v;
  }
  return i === columns.length;
}

/** The INSERT text of `count` rows of `columns` into `table`, compiled by Kysely once. */
function insertSql(db: Executor, table: string, columns: readonly string[], count: number): string {
  const adapter = db.getExecutor().adapter;
  let texts = compiledInserts.get(adapter);
  if (!texts) compiledInserts.set(adapter, (texts = new Map()));
  const key = `${table}\u0000${columns.join('\u0000')}\u0000${count}`;
  let sql = texts.get(key);
  if (sql === undefined) {
    const row = Object.fromEntries(columns.map((c) => [c, null]));
    const rows = Array.from({ length: count }, () => row);
    sql = db
      .insertInto(table as keyof Database & string)
      .values(rows as never)
      .compile().sql;
    if (texts.size >= COMPILED_INSERTS) {
      const oldest = texts.keys().next().value;
      if (oldest !== undefined) texts.delete(oldest);
    }
    texts.set(key, sql);
  }
  return sql;
}

/**
 * Inserts rows in as few statements as the engines' parameter limits allow. Rows that all have
 * the first row's columns, in its order, with plain values (the bulk writes: imports, routing,
 * jobs) reuse a statement text compiled once; any other list goes through Kysely's builder.
 */
export async function insertInChunks<T extends keyof Database & string>(
  db: Executor,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): Promise<void> {
  const first = rows[0];
  if (!first) return;
  const columns = Object.keys(first);
  const perRow = Math.max(1, columns.length);
  const size = Math.max(1, Math.floor(MAX_PARAMS / perRow));
  for (let i = 0; i < rows.length; i += size) {
    const slice = rows.slice(i, i + size);
    const params = new Array<unknown>(slice.length * columns.length);
    if (
      columns.length &&
      slice.every((r, j) => plainValues(r as Record<string, unknown>, columns, params, j * perRow))
    ) {
      await db.executeQuery(CompiledQuery.raw(insertSql(db, table, columns, slice.length), params));
      continue;
    }
    // Kysely's table-generic insert types do not narrow through a type parameter.
    await db
      .insertInto(table)
      .values(slice as never)
      .execute();
  }
}

/** Splits a list for `IN (...)` lookups that stay within the parameter limits. */
export function chunked<T>(items: readonly T[], size = 5_000): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
