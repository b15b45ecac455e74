import { sql } from 'kysely';
import type { Engine, Executor } from '../db.js';

/*
 * AnswerDistribution reads inside the answers' JSON text. SQLite and PostgreSQL spell that
 * differently (json_each / jsonb_array_elements); each pair below is written to give the same
 * rows, and the tests check both engines against the same expectations. It still aggregates in
 * the database: rows out are bounded by schemaIds and values, never by tasks. Its cost is
 * reading every answer of the project (see docs/exports-and-metrics.md for the figures).
 */

/** At most this many distinct values per classification come back (the most frequent). */
export const MAX_VALUES_PER_CLASSIFICATION = 100;

export interface AnswerValueRow {
  sid: string;
  v: string;
  n: number;
  /** Answers of this classification, all values together. */
  total: number;
  distinct_values: number;
}

/**
 * Top-level classification answers of current task answers: a scalar answer counts once, an
 * array answer (checkbox, multi-dropdown) counts each scalar element. Objects are skipped.
 */
export async function classificationAnswerCounts(
  db: Executor,
  engine: Engine,
  projectId: string,
): Promise<AnswerValueRow[]> {
  const values =
    engine === 'sqlite'
      ? sql`select json_extract(c.value, '$.schemaId') as sid,
              case e.type when 'true' then 'true' when 'false' then 'false' else cast(e.value as text) end as v
            from tasks t, json_each(t.answer, '$.classifications') c, json_each(c.value, '$.answer') e
            where t.project_id = ${projectId} and t.deleted = 0 and t.type = 'default'
              and e.type in ('text', 'integer', 'real', 'true', 'false')`
      : sql`select c.value ->> 'schemaId' as sid,
              case jsonb_typeof(e.value) when 'string' then e.value #>> '{}' else e.value::text end as v
            from (select answer::jsonb as a from tasks
                  where project_id = ${projectId} and deleted = 0 and type = 'default') t
            cross join lateral jsonb_array_elements(case when jsonb_typeof(t.a -> 'classifications') = 'array'
              then t.a -> 'classifications' else '[]'::jsonb end) c
            cross join lateral jsonb_array_elements(case when jsonb_typeof(c.value -> 'answer') = 'array'
              then c.value -> 'answer' else jsonb_build_array(c.value -> 'answer') end) e
            where jsonb_typeof(e.value) in ('string', 'number', 'boolean')`;
  // Ties are broken by the value in byte order on both engines (PostgreSQL: collation "C").
  const byValue = engine === 'sqlite' ? sql`v` : sql`v collate "C"`;
  const { rows } = await sql<AnswerValueRow>`
    select sid, v, n, total, distinct_values from (
      select sid, v, n,
        sum(n) over (partition by sid) as total,
        count(*) over (partition by sid) as distinct_values,
        row_number() over (partition by sid order by n desc, ${byValue}) as rank
      from (select sid, v, count(*) as n from (${values}) x where sid is not null group by sid, v) counted
    ) ranked
    where rank <= ${MAX_VALUES_PER_CLASSIFICATION}
    order by sid, rank`.execute(db);
  return rows.map((r) => ({
    ...r,
    n: Number(r.n),
    total: Number(r.total),
    distinct_values: Number(r.distinct_values),
  }));
}

/** Objects per tool schemaId in current task answers. */
export async function toolObjectCounts(db: Executor, engine: Engine, projectId: string) {
  const query =
    engine === 'sqlite'
      ? sql<{ sid: string; n: number }>`select json_extract(o.value, '$.schemaId') as sid, count(*) as n
          from tasks t, json_each(t.answer, '$.tools') o
          where t.project_id = ${projectId} and t.deleted = 0 and t.type = 'default'
          group by 1`
      : sql<{ sid: string; n: number }>`select o.value ->> 'schemaId' as sid, count(*) as n
          from (select answer::jsonb as a from tasks
                where project_id = ${projectId} and deleted = 0 and type = 'default') t
          cross join lateral jsonb_array_elements(case when jsonb_typeof(t.a -> 'tools') = 'array'
            then t.a -> 'tools' else '[]'::jsonb end) o
          group by 1`;
  const { rows } = await query.execute(db);
  return rows.filter((r) => r.sid !== null).map((r) => ({ sid: String(r.sid), n: Number(r.n) }));
}
