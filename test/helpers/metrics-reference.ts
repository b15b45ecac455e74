import { type RawBuilder, sql } from 'kysely';
import { expect } from 'vitest';
import type { Engine, Executor } from '../../src/store/db.js';
import { assetProfile } from '../../src/store/repositories/metrics-assets.repository.js';

/*
 * AnswerDistribution and AssetSize computed from scratch, the way they were computed on every
 * read before migration 008 kept them: by reading every answer and every asset of the project.
 * Tests compare what the triggers and the import keep with these. The queries are the former
 * on-read ones, with the rules of 008 made explicit where SQLite's json_each used to be looser
 * (it counted the members of an object answer; now objects count nothing on both engines), and
 * with the rule of migration 023: the entries of one video object (`page`, the same objectId)
 * are one object.
 */

type Key = [kind: string, sid: string, value: string, n: number];

/** Every counted (kind, schemaId, value) of a project's current answers, with its count. */
async function answerFactsFromScratch(db: Executor, engine: Engine, projectId: string): Promise<Key[]> {
  const query =
    engine === 'sqlite'
      ? sql<{ kind: string; sid: string; v: string }>`
          select 'classification' as kind, json_extract(c.value, '$.schemaId') as sid,
            case e.type when 'true' then 'true' when 'false' then 'false' else cast(e.value as text) end as v
          from tasks t, json_each(t.answer, '$.classifications') c, json_each(c.value, '$.answer') e
          where t.project_id = ${projectId} and t.deleted = 0 and t.type = 'default'
            and json_type(t.answer, '$.classifications') = 'array' and c.type = 'object'
            and json_type(c.value, '$.schemaId') = 'text' and json_type(c.value, '$.answer') <> 'object'
            and e.type in ('text', 'integer', 'real', 'true', 'false')
          union all
          select 'tool', sid, '' from (
            select distinct t.id, json_extract(o.value, '$.schemaId') as sid,
              case when json_type(o.value, '$.page') in ('integer', 'real') and json_type(o.value, '$.objectId') = 'text'
                then 'track ' || json_extract(o.value, '$.objectId') else 'entry ' || o.key end as object
            from tasks t, json_each(t.answer, '$.tools') o
            where t.project_id = ${projectId} and t.deleted = 0 and t.type = 'default'
              and json_type(t.answer, '$.tools') = 'array' and o.type = 'object'
              and json_type(o.value, '$.schemaId') = 'text')`
      : sql<{ kind: string; sid: string; v: string }>`
          select 'classification' as kind, c.value ->> 'schemaId' as sid,
            case jsonb_typeof(e.value) when 'string' then e.value #>> '{}' else e.value::text end as v
          from (select answer::jsonb as a from tasks
                where project_id = ${projectId} and deleted = 0 and type = 'default') t
          cross join lateral jsonb_array_elements(case when jsonb_typeof(t.a -> 'classifications') = 'array'
            then t.a -> 'classifications' else '[]'::jsonb end) c
          cross join lateral jsonb_array_elements(case when jsonb_typeof(c.value -> 'answer') = 'array'
            then c.value -> 'answer' else jsonb_build_array(c.value -> 'answer') end) e
          where jsonb_typeof(c.value -> 'schemaId') = 'string' and jsonb_typeof(e.value) in ('string', 'number', 'boolean')
          union all
          select 'tool', sid, '' from (
            select distinct t.id, o.value ->> 'schemaId' as sid,
              case when jsonb_typeof(o.value -> 'page') = 'number' and jsonb_typeof(o.value -> 'objectId') = 'string'
                then 'track ' || (o.value ->> 'objectId') else 'entry ' || o.i end as object
            from (select id, answer::jsonb as a from tasks
                  where project_id = ${projectId} and deleted = 0 and type = 'default') t
            cross join lateral jsonb_array_elements(case when jsonb_typeof(t.a -> 'tools') = 'array'
              then t.a -> 'tools' else '[]'::jsonb end) with ordinality o(value, i)
            where jsonb_typeof(o.value -> 'schemaId') = 'string') objects`;
  const { rows } = await sql<{ kind: string; sid: string; v: string; n: number }>`
    select kind, sid, v, count(*) as n from (${query}) x group by kind, sid, v`.execute(db);
  return sortKeys(rows.map((r) => [r.kind, String(r.sid), String(r.v), Number(r.n)]));
}

async function keptAnswerFacts(db: Executor, projectId: string): Promise<Key[]> {
  const rows = await db.selectFrom('answer_counts').selectAll().where('project_id', '=', projectId).execute();
  return sortKeys(rows.map((r) => [r.kind, r.schema_id, r.value, Number(r.n)]));
}

const sortKeys = (keys: Key[]) => keys.sort((a, b) => (a.join('\u0000') < b.join('\u0000') ? -1 : 1));

const SIZE_BOUNDS = [256, 512, 1024, 2048, 4096];
function bucketOf(value: RawBuilder<unknown>) {
  const ladder = SIZE_BOUNDS.map((b, i) => sql`when ${value} < ${sql.lit(b)} then ${sql.lit(i)}`);
  return sql`case when ${value} is null then null ${sql.join(ladder, sql` `)} else ${sql.lit(SIZE_BOUNDS.length)} end`;
}
const sqliteNumber = (key: string) =>
  sql`(case when json_type(metadata, ${`$.${key}`}) in ('integer', 'real') then json_extract(metadata, ${`$.${key}`}) end)`;
const pgNumber = (key: string) =>
  sql`(case when jsonb_typeof(metadata::jsonb -> ${key}) = 'number' then (metadata::jsonb ->> ${key})::float8 end)`;
const EXT = sql`case when has_path and length(tail) between 1 and 10 and replace(tail, '/', '') = tail
  then lower(tail) else 'unknown' end`;

/** Assets per (width bucket, height bucket, file type) from their metadata and URL. */
async function assetFactsFromScratch(db: Executor, engine: Engine, projectId: string) {
  const query =
    engine === 'sqlite'
      ? sql<{ wb: number | null; hb: number | null; ext: string; n: number }>`
          select ${bucketOf(sqliteNumber('width'))} as wb, ${bucketOf(sqliteNumber('height'))} as hb, ${EXT} as ext,
            count(*) as n
          from (select metadata, substr(p, length(rtrim(p, replace(p, '.', ''))) + 1) as tail,
                  length(p) - length(replace(p, '/', '')) >= 3 as has_path
                from (select metadata, substr(data, 1, min(instr(data || '?', '?'), instr(data || '#', '#')) - 1) as p
                      from assets where project_id = ${projectId} and deleted = 0) a) g
          group by 1, 2, 3`
      : sql<{ wb: number | null; hb: number | null; ext: string; n: number }>`
          select ${bucketOf(pgNumber('width'))} as wb, ${bucketOf(pgNumber('height'))} as hb, ${EXT} as ext,
            count(*) as n
          from (select metadata, split_part(p, '.', -1) as tail,
                  length(p) - length(replace(p, '/', '')) >= 3 as has_path
                from (select metadata, split_part(split_part(data, '#', 1), '?', 1) as p
                      from assets where project_id = ${projectId} and deleted = 0) a) g
          group by 1, 2, 3`;
  const { rows } = await query.execute(db);
  return sortProfile(rows.map((r) => ({ wb: nullable(r.wb), hb: nullable(r.hb), ext: String(r.ext), n: Number(r.n) })));
}

const nullable = (v: number | null) => (v === null ? null : Number(v));
const sortProfile = <T extends { wb: number | null; hb: number | null; ext: string }>(rows: T[]) =>
  rows.sort((a, b) => (`${a.wb}/${a.hb}/${a.ext}` < `${b.wb}/${b.hb}/${b.ext}` ? -1 : 1));

/**
 * Asserts that a project's kept figures equal the from-scratch ones; answers the number of
 * counted answer facts and assets, so a test can also check that it compared something.
 */
export async function expectKeptFiguresExact(db: Executor, engine: Engine, projectId: string) {
  const [kept, scratch] = await Promise.all([
    keptAnswerFacts(db, projectId),
    answerFactsFromScratch(db, engine, projectId),
  ]);
  expect(kept).toEqual(scratch);
  const [profile, assets] = await Promise.all([
    assetProfile(db, projectId),
    assetFactsFromScratch(db, engine, projectId),
  ]);
  expect(sortProfile(profile)).toEqual(assets);
  return { facts: scratch.reduce((sum, k) => sum + k[3], 0), assets: assets.reduce((sum, a) => sum + a.n, 0) };
}
