import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/**
 * The pg pool as Kysely sees it, with every query sent through pg's callback API behind a
 * promise of our own. Kysely calls pg's promise API (`client.query(sql, params)` with no
 * callback), and rows read that way were nearly all promoted to V8's old generation, which only
 * a full collection frees: paging through a 100,000-task export promoted 390 MB of the 720 MB it
 * allocated, against 13 MB through the callback API (same queries, same Kysely, counted with
 * `node --trace-gc-nvp`; see docs/benchmarks.md, export). Why pg's promise path keeps its results
 * alive across young collections is not established; the callback path does not. On a large
 * export it was the difference between a heap grown to V8's limit and a flat one.
 */
/**
 * Statement names for the hot reads of `preparedQuery`, by their SQL text. PostgreSQL parses and
 * plans an unnamed statement on every call: for the task read (five tables joined) that was more
 * than a millisecond of PostgreSQL's CPU per request, more than it spent running it (server log,
 * `log_min_duration_statement`; docs/benchmarks.md). A named statement is parsed once per
 * connection, and after five runs PostgreSQL may keep a generic plan for it. Only SQL registered
 * here is named: it is a fixed, small set, so the statements each connection keeps stay bounded.
 */
const statementNames = new Map<string, string>();

/** Marks `sql` (a compiled hot read, the same text on every call) to run as a named statement. */
export function nameStatement(sql: string): void {
  if (!statementNames.has(sql)) statementNames.set(sql, `annotary_hot_${statementNames.size + 1}`);
}

export function callbackQueries(pool: pg.Pool): PostgresPool {
  // Kysely keeps one connection object per client it is handed: hand it the same wrapper.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const query = <R>(sql: string, parameters: readonly unknown[]) =>
      new Promise<PostgresQueryResult<R>>((resolve, reject) => {
        const done = (err: Error | undefined, result: pg.QueryResult) =>
          err ? reject(err) : resolve(result as unknown as PostgresQueryResult<R>);
        const name = statementNames.get(sql);
        if (name) client.query({ name, text: sql, values: [...parameters] }, done);
        else client.query(sql, [...parameters], done);
      });
    // Kysely uses the cursor overload only when given a cursor class, which the store never does.
    return { query: query as PostgresPoolClient['query'], release: () => client.release() };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
