import type { Compilable, CompiledQuery } from 'kysely';
import type { Executor } from './db.js';
import { nameStatement } from './pg-callback-queries.js';

/*
 * A hot read built and compiled by Kysely once per database handle, then run with each call's
 * values. Building and compiling a query cost more than SQLite took to run it on the reads every
 * request makes. The query is written with Kysely as usual; the builder receives a stand-in for
 * each named argument, and the compiled parameters remember which stand-in sat where, so a call
 * only substitutes its values. Constants the builder wrote themselves (e.g. `deleted = 0`) stay.
 */

type Slot<A extends string> = { arg: A } | { value: unknown };

interface Compiled<R, A extends string> {
  query: CompiledQuery<R>;
  slots: Slot<A>[];
}

const STAND_IN = '\u0000prepared-arg:';

/**
 * `build` must pass every stand-in through as a query parameter (a value compared or selected),
 * never transform it (no `${x}%` patterns: build those in SQL). Each argument is a string.
 */
export function preparedQuery<A extends string, R>(
  args: readonly A[],
  build: (db: Executor, standIns: Record<A, string>) => Compilable<R>,
): (db: Executor, values: Record<A, string>) => Promise<R[]> {
  const compiledFor = new WeakMap<Executor, Compiled<R, A>>();
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
    nameStatement(query.sql);
    return { query, slots };
  }

  return async (db, values) => {
    let compiled = compiledFor.get(db);
    if (!compiled) {
      compiled = compile(db);
      compiledFor.set(db, compiled);
    }
    const parameters = compiled.slots.map((s) => ('arg' in s ? values[s.arg] : s.value));
    const result = await db.executeQuery<R>({ ...compiled.query, parameters });
    return result.rows;
  };
}
