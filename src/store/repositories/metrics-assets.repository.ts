import { type RawBuilder, sql } from 'kysely';
import type { Engine, Executor } from '../db.js';

/*
 * AssetSize in one pass over the project's assets, in two steps. First the assets are grouped
 * by their raw metadata text and the raw tail of their URL's path (after the last dot): cheap
 * string work per asset, and few groups in practice (a dataset has a handful of resolutions and
 * file types). Then only the groups are parsed and bucketed. Parsing JSON per asset instead was
 * the cost of this metric; in the worst case (every asset's metadata different) it degrades to
 * that, never to more. Per-asset values are computed once (a MATERIALIZED common table
 * expression): inlined, SQLite re-evaluates a subquery's expression at every mention.
 * SQLite and PostgreSQL spell the string and JSON work differently; each pair gives the same rows
 * (the tests check both engines against the same expectations).
 */

/** Upper bounds of the size buckets, in pixels; the last bucket is open. */
export const SIZE_BOUNDS = [256, 512, 1024, 2048, 4096];

/** Bucket index 0..5 of a number, or null. */
function bucketOf(value: RawBuilder<unknown>) {
  const ladder = SIZE_BOUNDS.map((b, i) => sql`when ${value} < ${sql.lit(b)} then ${sql.lit(i)}`);
  return sql`case when ${value} is null then null ${sql.join(ladder, sql` `)} else ${sql.lit(SIZE_BOUNDS.length)} end`;
}

/** A JSON number of the metadata, else null. */
const sqliteNumber = (key: string) =>
  sql`(case when json_type(metadata, ${`$.${key}`}) in ('integer', 'real') then json_extract(metadata, ${`$.${key}`}) end)`;
const pgNumber = (key: string) =>
  sql`(case when jsonb_typeof(metadata::jsonb -> ${key}) = 'number' then (metadata::jsonb ->> ${key})::float8 end)`;

/**
 * The extension: the text after the last dot of the URL's path (query and fragment cut), lower
 * case, 1 to 10 characters, within the last path segment of a URL that has a path; otherwise
 * 'unknown'. The tail after the last dot comes from split_part(p, '.', -1) on PostgreSQL and from
 * the rtrim trick on SQLite (trim every character but the dot from the right); both give the
 * whole path when it has no dot, which the slash test then refuses. No regular expression: one
 * per asset made this metric ten times slower on PostgreSQL.
 */
const EXT = sql`case when has_path and length(tail) between 1 and 10 and replace(tail, '/', '') = tail
  then lower(tail) else 'unknown' end`;

export interface AssetProfileRow {
  /** Bucket index of the width, null when metadata has no numeric width. */
  wb: number | null;
  hb: number | null;
  ext: string;
  n: number;
}

export async function assetProfile(db: Executor, engine: Engine, projectId: string): Promise<AssetProfileRow[]> {
  const query =
    engine === 'sqlite'
      ? sql<AssetProfileRow>`
          with a as materialized (
            select metadata, substr(data, 1, min(instr(data || '?', '?'), instr(data || '#', '#')) - 1) as p
            from assets where project_id = ${projectId} and deleted = 0
          ), g as (
            select metadata, substr(p, length(rtrim(p, replace(p, '.', ''))) + 1) as tail,
              length(p) - length(replace(p, '/', '')) >= 3 as has_path, count(*) as n
            from a group by 1, 2, 3
          )
          select ${bucketOf(sqliteNumber('width'))} as wb, ${bucketOf(sqliteNumber('height'))} as hb,
            ${EXT} as ext, sum(n) as n
          from g group by 1, 2, 3`
      : sql<AssetProfileRow>`
          with g as (
            select metadata, split_part(p, '.', -1) as tail,
              length(p) - length(replace(p, '/', '')) >= 3 as has_path, count(*) as n
            from (select metadata, split_part(split_part(data, '#', 1), '?', 1) as p
                  from assets where project_id = ${projectId} and deleted = 0) a
            group by 1, 2, 3
          )
          select ${bucketOf(pgNumber('width'))} as wb, ${bucketOf(pgNumber('height'))} as hb,
            ${EXT} as ext, sum(n) as n
          from g group by 1, 2, 3`;
  const { rows } = await query.execute(db);
  return rows.map((r) => ({
    wb: r.wb === null ? null : Number(r.wb),
    hb: r.hb === null ? null : Number(r.hb),
    ext: String(r.ext),
    n: Number(r.n),
  }));
}
