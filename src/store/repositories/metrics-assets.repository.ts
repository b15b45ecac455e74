import type { Executor } from '../db.js';

/*
 * AssetSize reads three facts that each asset carries from its import on (migration
 * 008-metric-figures): the bucket of its width, of its height, and its file type. Assets change
 * only at import and deletion, so the facts are derived once, here, when the row is made, and the
 * metric is one GROUP BY over the index `assets_size` (project, deleted, the three facts): it
 * reads no asset row, no metadata and no URL. Migration 008 filled the facts of older assets with
 * the same rules in SQL.
 */

/** Upper bounds of the size buckets, in pixels; the last bucket is open. */
export const SIZE_BOUNDS = [256, 512, 1024, 2048, 4096];

/** Bucket index 0..5 of a JSON number, null for anything else (absent, text, boolean...). */
function bucketOf(value: unknown): number | null {
  // Non-finite numbers are stored as JSON null (JSON.stringify), so they have no size either.
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const i = SIZE_BOUNDS.findIndex((bound) => value < bound);
  return i === -1 ? SIZE_BOUNDS.length : i;
}

/** ASCII letters only, as SQLite's lower() does: the same file type on both engines. */
const asciiLower = (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());

/**
 * The file type of an asset URL: the text after the last dot of the URL's path (query and
 * fragment cut), lower-cased, 1 to 10 characters, within the last path segment of a URL that has
 * a path (three slashes or more); otherwise 'unknown'. Lengths count characters (code points),
 * as SQL's length() does.
 */
export function fileTypeOf(url: string): string {
  const cut = [url.indexOf('?'), url.indexOf('#')].filter((i) => i >= 0);
  const path = cut.length ? url.slice(0, Math.min(...cut)) : url;
  const tail = path.slice(path.lastIndexOf('.') + 1);
  const slashes = path.length - path.replaceAll('/', '').length;
  const length = [...tail].length;
  return slashes >= 3 && length >= 1 && length <= 10 && !tail.includes('/') ? asciiLower(tail) : 'unknown';
}

export interface AssetSizeFacts {
  width_bucket: number | null;
  height_bucket: number | null;
  file_type: string;
}

/** The AssetSize facts of an asset row, from its URL and its metadata object. */
export function assetSizeFacts(url: string, metadata: Record<string, unknown> | null | undefined): AssetSizeFacts {
  return {
    width_bucket: bucketOf(metadata?.width),
    height_bucket: bucketOf(metadata?.height),
    file_type: fileTypeOf(url),
  };
}

export interface AssetProfileRow {
  /** Bucket index of the width, null when metadata has no numeric width. */
  wb: number | null;
  hb: number | null;
  ext: string;
  n: number;
}

/** Live assets per (width bucket, height bucket, file type): an index-only GROUP BY. */
export async function assetProfile(db: Executor, projectId: string): Promise<AssetProfileRow[]> {
  const rows = await db
    .selectFrom('assets')
    .select(['width_bucket', 'height_bucket', 'file_type', (eb) => eb.fn.countAll<number>().as('n')])
    .where('project_id', '=', projectId)
    .where('deleted', '=', 0)
    .groupBy(['width_bucket', 'height_bucket', 'file_type'])
    .execute();
  return rows.map((r) => ({
    wb: r.width_bucket === null ? null : Number(r.width_bucket),
    hb: r.height_bucket === null ? null : Number(r.height_bucket),
    ext: r.file_type,
    n: Number(r.n),
  }));
}
