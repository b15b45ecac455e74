import type { Insertable } from 'kysely';
import type { Executor } from './db.js';
import type { Database } from './schema.js';

/** Bound parameters per statement: under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMS = 30_000;

/** Inserts rows in as few statements as the engines' parameter limits allow. */
export async function insertInChunks<T extends keyof Database & string>(
  db: Executor,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): Promise<void> {
  const first = rows[0];
  if (!first) return;
  const perRow = Math.max(1, Object.keys(first).length);
  const size = Math.max(1, Math.floor(MAX_PARAMS / perRow));
  for (let i = 0; i < rows.length; i += size) {
    // Kysely's table-generic insert types do not narrow through a type parameter.
    await db
      .insertInto(table)
      .values(rows.slice(i, i + size) as never)
      .execute();
  }
}

/** Splits a list for `IN (...)` lookups that stay within the parameter limits. */
export function chunked<T>(items: readonly T[], size = 5_000): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
