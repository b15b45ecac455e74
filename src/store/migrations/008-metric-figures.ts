import { type Kysely, PostgresAdapter, sql } from 'kysely';
import {
  allTaskFacts,
  answerCountsPostgres,
  answerCountsSqlite,
  dropAnswerCounts,
  type ToolCounting,
} from './008-answer-counts.js';

/*
 * The figures of the two overview metrics that used to read every answer and every asset
 * (AnswerDistribution, AssetSize), kept as the data is written, so that asking them costs the
 * same at a million tasks as at ten (docs/exports-and-metrics.md):
 *
 * - Assets carry their AssetSize facts (width bucket, height bucket, file type) in columns, set
 *   at import (metrics-assets.repository.ts) and indexed: the metric is an index-only GROUP BY.
 *   Assets are only ever inserted and soft-deleted, so there is nothing else to keep up to date.
 * - `answer_counts` holds, per project, the classification answer values and tool objects of the
 *   current answers, kept by triggers on `tasks` (008-answer-counts.ts): no write path, present
 *   or future, can forget them.
 *
 * Both are filled for the data already there, with the rules the on-read queries used.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // All or nothing, and with the backfills seeing every committed task and asset: on PostgreSQL
  // the migrator's transaction (CREATE TRIGGER and ALTER TABLE hold writers off until commit);
  // SQLite migrations are not wrapped by the migrator, so here.
  if (isPostgres(db)) await apply(db, true);
  else await db.transaction().execute((trx) => apply(trx, false));
}

async function apply(db: Kysely<unknown>, postgres: boolean): Promise<void> {
  await db.schema.alterTable('assets').addColumn('width_bucket', 'integer').execute();
  await db.schema.alterTable('assets').addColumn('height_bucket', 'integer').execute();
  await db.schema
    .alterTable('assets')
    .addColumn('file_type', 'text', (c) => c.notNull().defaultTo('unknown'))
    .execute();
  await backfillAssetFacts(db);
  await db.schema
    .createIndex('assets_size')
    .on('assets')
    .columns(['project_id', 'deleted', 'width_bucket', 'height_bucket', 'file_type'])
    .execute();
  await (postgres ? answerCountsPostgres(db) : answerCountsSqlite(db));
  await backfillAnswerCounts(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropAnswerCounts(db, isPostgres(db));
  await db.schema.dropIndex('assets_size').ifExists().execute();
  for (const column of ['file_type', 'height_bucket', 'width_bucket']) {
    await db.schema.alterTable('assets').dropColumn(column).execute();
  }
}

export function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Recomputes every project's answer counts from the tasks' answers (the triggers' own rules). */
export async function backfillAnswerCounts(db: Kysely<unknown>, tools: ToolCounting = 'entries'): Promise<void> {
  await sql
    .raw(
      `INSERT INTO answer_counts (project_id, kind, schema_id, value, n)
       SELECT project_id, kind, schema_id, value, count(*) FROM (${allTaskFacts(isPostgres(db), tools)}) f
       GROUP BY project_id, kind, schema_id, value`,
    )
    .execute(db);
}

/** Upper bounds of the size buckets (metrics-assets.repository.ts SIZE_BOUNDS, frozen here). */
const SIZE_BOUNDS = [256, 512, 1024, 2048, 4096];

function bucketSql(value: string): string {
  const ladder = SIZE_BOUNDS.map((b, i) => `WHEN ${value} < ${b} THEN ${i}`).join(' ');
  return `CASE WHEN ${value} IS NULL THEN NULL ${ladder} ELSE ${SIZE_BOUNDS.length} END`;
}

/**
 * The file type from `tail` (the text after the last dot of the URL's path, the whole path when
 * it has none) and `p` (the path): lower-cased ASCII letters, 1 to 10 characters, no slash,
 * within a URL that has a path (three slashes). No regular expression: SQLite has none built in.
 */
function fileTypeSql(p: string, tail: string, lower: string): string {
  return `CASE WHEN length(${p}) - length(replace(${p}, '/', '')) >= 3 AND length(${tail}) BETWEEN 1 AND 10
    AND replace(${tail}, '/', '') = ${tail} THEN ${lower} ELSE 'unknown' END`;
}

/**
 * Fills the AssetSize facts of every asset from its URL and metadata, with the rules of the
 * query AssetSize ran before (and of fileTypeOf / assetSizeFacts at import): a JSON number
 * `width`/`height` in the metadata, the extension after the last dot of the URL's path.
 */
async function backfillAssetFacts(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    const num = (key: string) =>
      `(CASE WHEN jsonb_typeof(f.m -> '${key}') = 'number' THEN (f.m ->> '${key}')::float8 END)`;
    const ascii = `translate(f.tail, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;
    await sql
      .raw(
        `UPDATE assets a SET width_bucket = ${bucketSql(num('width'))}, height_bucket = ${bucketSql(num('height'))},
           file_type = ${fileTypeSql('f.p', 'f.tail', ascii)}
         FROM (SELECT id, m, p, split_part(p, '.', -1) AS tail
               FROM (SELECT id, metadata::jsonb AS m, split_part(split_part(data, '#', 1), '?', 1) AS p
                     FROM assets) cut) f
         WHERE f.id = a.id`,
      )
      .execute(db);
    return;
  }
  const num = (key: string) =>
    `(CASE WHEN json_type(f.metadata, '$.${key}') IN ('integer', 'real') THEN json_extract(f.metadata, '$.${key}') END)`;
  // rtrim(p, <every character of p but the dot>) leaves p up to its last dot (nothing without).
  // MATERIALIZED: inlined, SQLite would re-evaluate p at each of its many mentions.
  await sql
    .raw(
      `WITH cut AS MATERIALIZED (
         SELECT id, metadata, substr(data, 1, min(instr(data || '?', '?'), instr(data || '#', '#')) - 1) AS p
         FROM assets
       ), f AS MATERIALIZED (
         SELECT id, metadata, p, substr(p, length(rtrim(p, replace(p, '.', ''))) + 1) AS tail FROM cut
       )
       UPDATE assets SET width_bucket = ${bucketSql(num('width'))}, height_bucket = ${bucketSql(num('height'))},
         file_type = ${fileTypeSql('f.p', 'f.tail', 'lower(f.tail)')}
       FROM f WHERE f.id = assets.id`,
    )
    .execute(db);
}
