import { type Kysely, sql } from 'kysely';

/*
 * Migration 008, part two: `answer_counts`, one row per (project, kind, schemaId, value) with the
 * number of current answers that gave it, kept by triggers on `tasks`.
 *
 * What counts (the rules AnswerDistribution applied on read, now the same on both engines): tasks
 * not deleted and of type 'default' (consensus copies never count). Per element of the answer's
 * top-level `classifications` array that is an object with a string `schemaId`, kind
 * 'classification': a scalar `answer` counts once, an array `answer` counts each scalar element;
 * objects, nulls and nested arrays count nothing. Values are text: strings as they are, numbers
 * as the engine prints them, true/false. Per object of `tools` with a string `schemaId`, kind
 * 'tool', value ''. Rows that fall to zero are deleted.
 *
 * SQLite: row triggers apply each task's facts at once; writers are serialised, so a counter row
 * costs no concurrency. Routing rewrites every column of a moved task: the WHEN clauses keep
 * ordinary moves free, and an empty answer (a new task) is recognised by its text unparsed.
 *
 * PostgreSQL: statement triggers with transition tables (an import's insert of thousands of
 * tasks parses each distinct answer once) append net changes to `answer_count_changes` under the
 * transaction's id; a deferred constraint trigger folds them into `answer_counts` at commit, in
 * key order. Counter rows are therefore locked only during commit, by a transaction that waits
 * for nothing else, and in the same order by everyone: concurrent writers queue, never deadlock,
 * however many task statements they run before. The changes table is unlogged: what it holds
 * never outlives its transaction.
 */

/** The answer text of a task that has none (EMPTY_ANSWER as JSON.stringify writes it). */
const EMPTY = `'{"tools":[],"classifications":[],"relations":[]}'`;

/** What surrounds the facts of an answer: extra columns, tables before, and a condition. */
interface Around {
  columns: string;
  from: string;
  where: string;
  /** What tells one answer from another where several are read at once (`t.id, `), or ''. */
  answerKey?: string;
}

/**
 * Since migration 023 an object of a video counts once, however many keyframe entries its track
 * has: entries carrying `page` count once per (schemaId, objectId); any other entry once itself.
 */
export type ToolCounting = 'entries' | 'tracks';

/** SQLite: the (kind, schema_id, value) rows of one answer; one row per counted fact. */
function sqliteFacts(answer: string, around: Around, tools: ToolCounting = 'entries'): string {
  const scalars = `'text', 'integer', 'real', 'true', 'false'`;
  // typeof(key) = 'integer': iterating an array (an object's members have text keys). A scalar
  // element's value is plain SQL text, not JSON: the CASEs keep JSON functions off it whatever
  // order SQLite tests the conditions in (a parse error would fail the task's write).
  return `SELECT ${around.columns}'classification' AS kind, c.value ->> '$.schemaId' AS schema_id,
      CASE e.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(e.value AS TEXT) END AS value
    FROM ${around.from}jsonb_each(${answer}, '$.classifications') AS c,
      jsonb_each(CASE WHEN c.type = 'object' THEN c.value END, '$.answer') AS e
    WHERE ${around.where} AND typeof(c.key) = 'integer' AND c.type = 'object'
      AND CASE WHEN c.type = 'object' THEN json_type(c.value, '$.schemaId') = 'text'
        AND json_type(c.value, '$.answer') IN ('array', ${scalars}) END
      AND e.type IN (${scalars})
    UNION ALL
    SELECT ${around.columns}'tool', obj.value ->> '$.schemaId', ''
    FROM ${around.from}jsonb_each(${answer}, '$.tools') AS obj
    WHERE ${around.where} AND typeof(obj.key) = 'integer' AND obj.type = 'object'
      AND CASE WHEN obj.type = 'object' THEN json_type(obj.value, '$.schemaId') = 'text' END${
        tools === 'tracks'
          ? `
    GROUP BY ${around.answerKey ?? ''}obj.value ->> '$.schemaId',
      CASE WHEN json_type(obj.value, '$.page') IN ('integer', 'real') AND json_type(obj.value, '$.objectId') = 'text'
        THEN 'o' || (obj.value ->> '$.objectId') ELSE 'k' || obj.key END`
          : ''
      }`;
}

/** (project_id, kind, schema_id, value) of every counted fact of every task: the backfill's input. */
export function allTaskFacts(postgres: boolean, tools: ToolCounting = 'entries'): string {
  if (postgres) {
    return `SELECT t.project_id, f.kind, f.schema_id, f.value
      FROM tasks t CROSS JOIN LATERAL answer_facts(t.answer) f
      WHERE t.deleted = 0 AND t.type = 'default'`;
  }
  return sqliteFacts(
    't.answer',
    {
      columns: 't.project_id AS project_id, ',
      from: 'tasks AS t, ',
      where: `t.deleted = 0 AND t.type = 'default'`,
      answerKey: 't.id, ',
    },
    tools,
  );
}

const TABLE = `CREATE TABLE answer_counts (project_id TEXT NOT NULL, kind TEXT NOT NULL, schema_id TEXT NOT NULL,
  value TEXT NOT NULL, n BIGINT NOT NULL, PRIMARY KEY (project_id, kind, schema_id, value))`;

export async function answerCountsSqlite(db: Kysely<unknown>, tools: ToolCounting = 'entries'): Promise<void> {
  await sql.raw(`${TABLE} WITHOUT ROWID`).execute(db);
  await answerTriggersSqlite(db, tools);
  await sql
    .raw(
      `CREATE TRIGGER answer_counts_zero AFTER UPDATE OF n ON answer_counts WHEN NEW.n = 0 BEGIN
       DELETE FROM answer_counts WHERE project_id = NEW.project_id AND kind = NEW.kind
         AND schema_id = NEW.schema_id AND value = NEW.value;
     END`,
    )
    .execute(db);
}

/** SQLite: the triggers on `tasks` that keep the counts (dropped and made again by migration 023). */
export async function answerTriggersSqlite(db: Kysely<unknown>, tools: ToolCounting): Promise<void> {
  const counted = (r: string) => `(${r}.deleted = 0 AND ${r}.type = 'default')`;
  // Constant conditions inside the facts query: SQLite tests them before parsing anything.
  const add = (r: 'NEW' | 'OLD', sign: number) =>
    `INSERT INTO answer_counts (project_id, kind, schema_id, value, n)
     SELECT ${r}.project_id, kind, schema_id, value, ${sign}
     FROM (${sqliteFacts(`${r}.answer`, { columns: '', from: '', where: `${counted(r)} AND ${r}.answer <> ${EMPTY}` }, tools)})
     WHERE true ON CONFLICT (project_id, kind, schema_id, value) DO UPDATE SET n = n + excluded.n;`;
  const triggers = [
    `CREATE TRIGGER answer_counts_insert AFTER INSERT ON tasks WHEN ${counted('NEW')} BEGIN ${add('NEW', 1)} END`,
    `CREATE TRIGGER answer_counts_delete AFTER DELETE ON tasks WHEN ${counted('OLD')} BEGIN ${add('OLD', -1)} END`,
    `CREATE TRIGGER answer_counts_update AFTER UPDATE OF answer, deleted, type, project_id ON tasks
     WHEN (${counted('OLD')} OR ${counted('NEW')}) AND (OLD.answer IS NOT NEW.answer
       OR OLD.project_id IS NOT NEW.project_id OR ${counted('OLD')} IS NOT ${counted('NEW')})
     BEGIN ${add('OLD', -1)} ${add('NEW', 1)} END`,
  ];
  for (const t of triggers) await sql.raw(t).execute(db);
}

/** PostgreSQL: the facts of one answer (the rules above), a function the planner inlines. */
const PG_FACTS = `
  CREATE FUNCTION answer_facts(answer TEXT) RETURNS TABLE (kind TEXT, schema_id TEXT, value TEXT)
  LANGUAGE sql IMMUTABLE AS $$
    SELECT 'classification', c.value ->> 'schemaId',
      CASE jsonb_typeof(e.value) WHEN 'string' THEN e.value #>> '{}' ELSE e.value::text END
    FROM (SELECT answer::jsonb AS a) j
    CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(j.a -> 'classifications') = 'array'
      THEN j.a -> 'classifications' ELSE '[]' END) c
    CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(c.value -> 'answer') = 'array'
      THEN c.value -> 'answer' ELSE jsonb_build_array(c.value -> 'answer') END) e
    WHERE jsonb_typeof(c.value -> 'schemaId') = 'string' AND jsonb_typeof(e.value) IN ('string', 'number', 'boolean')
    UNION ALL
    SELECT 'tool', o.value ->> 'schemaId', ''
    FROM (SELECT answer::jsonb AS a) j
    CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(j.a -> 'tools') = 'array'
      THEN j.a -> 'tools' ELSE '[]' END) WITH ORDINALITY o(value, i)
    WHERE jsonb_typeof(o.value -> 'schemaId') = 'string'
    @GROUP@
  $$`;

/** The PostgreSQL facts function, counting tool entries or tracks (ToolCounting). */
function pgFacts(tools: ToolCounting, replace = false): string {
  const group =
    tools === 'tracks'
      ? `GROUP BY o.value ->> 'schemaId', CASE WHEN jsonb_typeof(o.value -> 'page') = 'number'
          AND jsonb_typeof(o.value -> 'objectId') = 'string'
          THEN 'o' || (o.value ->> 'objectId') ELSE 'k' || o.i END`
      : '';
  const text = PG_FACTS.replace('@GROUP@', group);
  return replace ? text.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION') : text;
}

/** The facts function of PostgreSQL made again (migration 023 counts tracks once). */
export const pgFactsFunction = (tools: ToolCounting) => pgFacts(tools, true);

/**
 * Net changes of one statement: counted rows (-1 for old, +1 for new) summed per distinct answer
 * text first, so an unchanged answer cancels out unparsed and a thousand identical ones parse
 * once. No join of old and new rows: a plan cached for one row must not run a million.
 */
function pgCollect(changes: string): string {
  return `INSERT INTO answer_count_changes (xid, project_id, kind, schema_id, value, n)
    SELECT txid_current(), s.project_id, f.kind, f.schema_id, f.value, sum(s.d)
    FROM (SELECT project_id, answer, sum(d) AS d FROM (${changes}) c
          GROUP BY project_id, answer HAVING sum(d) <> 0) s
    CROSS JOIN LATERAL answer_facts(s.answer) f
    GROUP BY s.project_id, f.kind, f.schema_id, f.value HAVING sum(s.d) <> 0;`;
}
const pgCounted = (rows: string, sign: number) =>
  `SELECT project_id, answer, ${sign} AS d FROM ${rows} WHERE deleted = 0 AND type = 'default'`;

export async function answerCountsPostgres(db: Kysely<unknown>): Promise<void> {
  await sql.raw(TABLE).execute(db);
  await sql`CREATE UNLOGGED TABLE answer_count_changes (xid BIGINT NOT NULL, project_id TEXT NOT NULL,
    kind TEXT NOT NULL, schema_id TEXT NOT NULL, value TEXT NOT NULL, n BIGINT NOT NULL)`.execute(db);
  await sql`CREATE INDEX answer_count_changes_xid ON answer_count_changes (xid)`.execute(db);
  await sql`CREATE UNLOGGED TABLE answer_count_flushes (xid BIGINT PRIMARY KEY)`.execute(db);
  await sql.raw(pgFacts('entries')).execute(db);
  // search_path pinned: the triggers find their tables whatever the writing session's path is.
  await sql
    .raw(
      `CREATE FUNCTION answer_counts_collect() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN ${pgCollect(pgCounted('new_rows', 1))}
        ELSIF TG_OP = 'DELETE' THEN ${pgCollect(pgCounted('old_rows', -1))}
        ELSE ${pgCollect(`${pgCounted('old_rows', -1)} UNION ALL ${pgCounted('new_rows', 1)}`)}
        END IF;
        -- One flush per transaction: the marker row's insert queues the deferred trigger once.
        IF FOUND THEN
          INSERT INTO answer_count_flushes (xid) VALUES (txid_current()) ON CONFLICT DO NOTHING;
        END IF;
        RETURN NULL;
      END $$`,
    )
    .execute(db);
  await sql`
    CREATE FUNCTION answer_counts_flush() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    DECLARE zp TEXT[]; zk TEXT[]; zs TEXT[]; zv TEXT[];
    BEGIN
      WITH moved AS (
        DELETE FROM answer_count_changes WHERE xid = NEW.xid RETURNING project_id, kind, schema_id, value, n
      ), applied AS (
        INSERT INTO answer_counts AS a (project_id, kind, schema_id, value, n)
        SELECT project_id, kind, schema_id, value, sum(n) FROM moved
        GROUP BY project_id, kind, schema_id, value HAVING sum(n) <> 0
        ORDER BY project_id, kind, schema_id, value
        ON CONFLICT (project_id, kind, schema_id, value) DO UPDATE SET n = a.n + excluded.n
        RETURNING project_id, kind, schema_id, value, n
      )
      SELECT array_agg(project_id), array_agg(kind), array_agg(schema_id), array_agg(value)
        INTO zp, zk, zs, zv FROM applied WHERE n = 0;
      IF zp IS NOT NULL THEN
        DELETE FROM answer_counts WHERE n = 0
          AND (project_id, kind, schema_id, value) IN (SELECT * FROM unnest(zp, zk, zs, zv));
      END IF;
      DELETE FROM answer_count_flushes WHERE xid = NEW.xid;
      RETURN NULL;
    END $$`.execute(db);
  const events = [
    ['insert', 'INSERT', 'NEW TABLE AS new_rows'],
    ['update', 'UPDATE', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'],
    ['delete', 'DELETE', 'OLD TABLE AS old_rows'],
  ];
  // Transition tables allow one event per trigger (and no column list): three triggers.
  for (const [name, event, tables] of events) {
    await sql
      .raw(
        `CREATE TRIGGER answer_counts_${name} AFTER ${event} ON tasks REFERENCING ${tables}
         FOR EACH STATEMENT EXECUTE FUNCTION answer_counts_collect()`,
      )
      .execute(db);
  }
  await sql`CREATE CONSTRAINT TRIGGER answer_counts_flush AFTER INSERT ON answer_count_flushes
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION answer_counts_flush()`.execute(db);
}

export async function dropAnswerCounts(db: Kysely<unknown>, postgres: boolean): Promise<void> {
  for (const name of ['insert', 'update', 'delete']) {
    await sql.raw(`DROP TRIGGER IF EXISTS answer_counts_${name}${postgres ? ' ON tasks' : ''}`).execute(db);
  }
  if (postgres) {
    await sql`DROP TABLE IF EXISTS answer_count_flushes, answer_count_changes`.execute(db);
    await sql`DROP FUNCTION IF EXISTS answer_counts_flush(), answer_counts_collect(), answer_facts(TEXT)`.execute(db);
  }
  await sql`DROP TABLE IF EXISTS answer_counts`.execute(db);
}
