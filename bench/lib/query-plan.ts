import { CompiledQuery } from 'kysely';
import type { Store } from '../../src/store/db.js';

const clip = (line: string) => (line.length > 160 ? `${line.slice(0, 160)}...` : line);

/**
 * The plan of a query as its engine chose it, one line per step: PostgreSQL's EXPLAIN (ANALYZE,
 * BUFFERS), which runs the query; SQLite's EXPLAIN QUERY PLAN, indented by its tree.
 */
export async function queryPlan(store: Store, q: CompiledQuery): Promise<string[]> {
  if (store.engine === 'postgres') {
    const r = await store.db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`EXPLAIN (ANALYZE, BUFFERS) ${q.sql}`, [...q.parameters]),
    );
    // A condition on a list of 1000 ids prints them all: keep the line's start.
    return r.rows.map((row) => clip(row['QUERY PLAN']));
  }
  const r = await store.db.executeQuery<{ id: number; parent: number; detail: string }>(
    CompiledQuery.raw(`EXPLAIN QUERY PLAN ${q.sql}`, [...q.parameters]),
  );
  const depth = new Map<number, number>([[0, 0]]);
  return r.rows.map((row) => {
    const d = (depth.get(row.parent) ?? 0) + 1;
    depth.set(row.id, d);
    return clip(`${'  '.repeat(d - 1)}${row.detail}`);
  });
}
