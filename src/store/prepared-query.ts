import { type Compilable, type CompiledQuery, PostgresAdapter, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Engine, Executor } from './db.js';
import { nameStatement } from './pg-callback-queries.js';

/*
 * A hot read built and compiled by Kysely once per database handle, then run with each call's
 * values. Building and compiling a query cost more than SQLite took to run it on the reads every
 * request makes. The query is written with Kysely as usual; the builder receives a stand-in for
 * each named argument, and the compiled parameters remember which stand-in sat where, so a call
 * only substitutes its values. Constants the builder wrote themselves (e.g. `deleted = 0`) stay.
 * A list of ids is one argument too (`inIdList`), so that a statement over many rows has one
 * text whatever their number. The compiled query depends only on the dialect: it is kept per
 * dialect adapter, which a transaction shares with its database, so statements run inside
 * transactions are compiled once too.
 */

type Slot<A extends string> = { arg: A } | { value: unknown };

interface Compiled<R, A extends string> {
  query: CompiledQuery<R>;
  slots: Slot<A>[];
}

const STAND_IN = '\u0000prepared-arg:';

/**
 * `build` must pass every stand-in through as a query parameter (a value compared or selected),
 * never transform it (no `${x}%` patterns: build those in SQL). Each argument is a string, a
 * number, null, or an id list made by `idList` for a stand-in written into the query by `inIdList`.
 */
export function preparedQuery<A extends string, R>(
  args: readonly A[],
  build: (db: Executor, standIns: Record<A, string>) => Compilable<R>,
  /**
   * `named: false`: on PostgreSQL, planned anew on each call with its values, as an unnamed
   * statement (for a statement whose best plan depends on them).
   */
  opts: { named?: boolean } = {},
): (db: Executor, values: Record<A, PreparedValue>) => Promise<R[]> {
  const compiledFor = new WeakMap<object, Compiled<R, A>>();
  const byStandIn = new Map<unknown, A>(args.map((a) => [`${STAND_IN}${a}`, a]));
  const standIns = Object.fromEntries(args.map((a) => [a, `${STAND_IN}${a}`])) as Record<A, string>;

  function compile(db: Executor): Compiled<R, A> {
    const query = build(db, standIns).compile();
    const slots = query.parameters.map((value): Slot<A> => {
      const arg = byStandIn.get(value);
      return arg === undefined ? { value } : { arg };
    });
    const seen = new Set(slots.flatMap((s) => ('arg' in s ? [s.arg] : [])));
    const missing = args.filter((a) => !seen.has(a));
    if (missing.length) throw new Error(`prepared query lost its argument(s) ${missing.join(', ')}`);
    // On PostgreSQL the text is also prepared once per connection (a no-op for SQLite's handles).
    if (opts.named !== false) nameStatement(query.sql);
    return { query, slots };
  }

  return async (db, values) => {
    const adapter = db.getExecutor().adapter;
    let compiled = compiledFor.get(adapter);
    if (!compiled) {
      compiled = compile(db);
      compiledFor.set(adapter, compiled);
    }
    const parameters = compiled.slots.map((s) => ('arg' in s ? values[s.arg] : s.value));
    const result = await db.executeQuery<R>({ ...compiled.query, parameters });
    return result.rows;
  };
}

/** The engine an executor runs on, from its dialect adapter. */
export function engineOf(db: Executor): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** What a prepared query's argument takes. */
export type PreparedValue = string | number | null | IdList;

declare const idListBrand: unique symbol;
/** Ids as one statement parameter: a JSON array on SQLite, a text[] on PostgreSQL. */
export type IdList = { readonly [idListBrand]: true };

/** The value of an `inIdList` argument. */
export function idList(db: Executor, ids: readonly string[]): IdList {
  return (engineOf(db) === 'postgres' ? [...ids] : JSON.stringify(ids)) as unknown as IdList;
}

/**
 * `column` is one of the ids passed as the one parameter `list` (an `idList` value): SQLite
 * reads the JSON array with json_each, PostgreSQL compares with `= ANY` of a text[].
 */
export function inIdList(db: Executor, column: string, list: string): RawBuilder<SqlBool> {
  return engineOf(db) === 'postgres'
    ? sql<SqlBool>`${sql.ref(column)} = ANY(${list}::text[])`
    : sql<SqlBool>`${sql.ref(column)} IN (SELECT value FROM json_each(${list}))`;
}
