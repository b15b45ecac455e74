import {
  type Compilable,
  CompiledQuery,
  type Kysely,
  PostgresAdapter,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
} from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.js';

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

/**
 * Marks a statement to be sent with its transaction's COMMIT (`executeAtCommit`), in the same
 * round trip, instead of on its own.
 */
const AT_COMMIT = '/* at commit */ ';

/**
 * Runs `query` (an INSERT whose values are strings or nulls) as part of the open transaction
 * `trx`, sent with its COMMIT. On PostgreSQL every statement costs a round trip to the server,
 * and a write's audit record was one more statement in the write's transaction: about a quarter
 * of a millisecond, 5 to 7 % of a project update (docs/benchmarks.md, audit). Held to the
 * commit, it travels in the COMMIT's round trip: the pair is one simple query, `INSERT ...;
 * commit`, its values written in as literals (`escapeLiteral`). It still commits with the
 * transaction or not at all: an INSERT that fails aborts the transaction before the COMMIT runs,
 * and the caller's transaction then rolls back. Statements later in the transaction do not see
 * the held row (nothing reads what it inserts in the same transaction). Outside a transaction, on
 * SQLite (no round trips) or with other values, the statement runs at once.
 */
export async function executeAtCommit(trx: Kysely<Database>, query: Compilable<unknown>): Promise<void> {
  const compiled = query.compile();
  const holdable =
    trx.isTransaction &&
    trx.getExecutor().adapter instanceof PostgresAdapter &&
    compiled.parameters.every((v) => typeof v === 'string' || v === null);
  await trx.executeQuery(holdable ? CompiledQuery.raw(AT_COMMIT + compiled.sql, [...compiled.parameters]) : compiled);
}

/** The statement with each `$n` replaced by its value as a literal (strings and nulls only). */
function inlined(client: pg.PoolClient, sql: string, parameters: readonly unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const value = parameters[Number(n) - 1];
    return typeof value === 'string' ? client.escapeLiteral(value) : 'NULL';
  });
}

export function callbackQueries(pool: pg.Pool): PostgresPool {
  // Kysely keeps one connection object per client it is handed: hand it the same wrapper.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const send = <R>(text: string, parameters?: readonly unknown[]) =>
      new Promise<PostgresQueryResult<R>>((resolve, reject) => {
        const done = (err: Error | undefined, result: pg.QueryResult | pg.QueryResult[]) =>
          err
            ? reject(err)
            : // Several statements in one simple query answer one result each: the last is the caller's.
              resolve((Array.isArray(result) ? result.at(-1) : result) as unknown as PostgresQueryResult<R>);
        const name = statementNames.get(text);
        if (parameters === undefined) client.query(text, done);
        else if (name) client.query({ name, text, values: [...parameters] }, done);
        else client.query(text, [...parameters], done);
      });
    /** Statements held for the COMMIT of the open transaction, written out with their values. */
    let held: string[] = [];
    let inTransaction = false;
    const query = <R>(sql: string, parameters: readonly unknown[]) => {
      if (sql.startsWith(AT_COMMIT)) {
        const statement = sql.slice(AT_COMMIT.length);
        if (!inTransaction) return send<R>(statement, parameters);
        held.push(inlined(client, statement, parameters));
        return Promise.resolve({ command: 'HELD', rowCount: null, rows: [] } as unknown as PostgresQueryResult<R>);
      }
      // Transaction control is short; longer texts are the transaction's own statements.
      const command = sql.length < 64 ? /^\s*(\w+)(?:\s+(\w+))?/.exec(sql) : null;
      const verb = command?.[1]?.toLowerCase();
      if (verb === 'begin' || (verb === 'start' && command?.[2]?.toLowerCase() === 'transaction')) {
        inTransaction = true;
        held = [];
      } else if (verb === 'rollback' || verb === 'abort') {
        // To a savepoint: what was held came after it (a savepoint sends what is held, below).
        if (command?.[2]?.toLowerCase() !== 'to') inTransaction = false;
        held = [];
      } else if (verb === 'commit' || verb === 'end' || verb === 'savepoint') {
        if (verb !== 'savepoint') inTransaction = false;
        if (held.length > 0 && parameters.length === 0) {
          const text = [...held, sql].join(';\n');
          held = [];
          return send<R>(text);
        }
      }
      return send<R>(sql, parameters);
    };
    // Kysely uses the cursor overload only when given a cursor class, which the store never does.
    return {
      query: query as PostgresPoolClient['query'],
      release: () => {
        held = [];
        inTransaction = false;
        client.release();
      },
    };
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
