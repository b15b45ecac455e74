import type { Executor } from '../db.js';
import { assetSizeFacts } from './metrics-assets.repository.js';

/** What reading an asset's header needs: where its file is, and what is known of it. */
export interface HeaderAsset {
  id: string;
  data: string;
  metadata: string | null;
  orgId: string;
  /** A paged or point-cloud asset's files (JSON list), else null. */
  dataset?: string | null | undefined;
}

/** The live assets of a project among `ids` that have neither a size nor a warning yet. */
export async function assetsToMeasure(db: Executor, projectId: string, ids: string[]): Promise<HeaderAsset[]> {
  if (!ids.length) return [];
  const rows = await db
    .selectFrom('assets')
    .innerJoin('projects', 'projects.id', 'assets.project_id')
    .select(['assets.id', 'assets.data', 'assets.metadata', 'assets.dataset', 'projects.organization_id'])
    .where('assets.project_id', '=', projectId)
    .where('assets.id', 'in', ids)
    .where('assets.deleted', '=', 0)
    .where('assets.media_warning', 'is', null)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    data: r.data,
    metadata: r.metadata,
    orgId: r.organization_id,
    dataset: r.dataset,
  }));
}

/** Writes the asset's metadata (with the size read) and its size facts. */
export async function saveAssetSize(db: Executor, asset: HeaderAsset, metadata: Record<string, unknown>) {
  const facts = assetSizeFacts(asset.data, metadata);
  await db
    .updateTable('assets')
    .set({ metadata: JSON.stringify(metadata), width_bucket: facts.width_bucket, height_bucket: facts.height_bucket })
    .where('id', '=', asset.id)
    .execute();
}

export async function saveMediaWarning(db: Executor, assetId: string, warning: string) {
  await db.updateTable('assets').set({ media_warning: warning }).where('id', '=', assetId).execute();
}

/** A live asset with its project and organization, for PUT /asset/{id}/size. */
export async function findLiveAsset(db: Executor, id: string) {
  const row = await db
    .selectFrom('assets')
    .innerJoin('projects', 'projects.id', 'assets.project_id')
    .select([
      'assets.id',
      'assets.project_id',
      'assets.data',
      'assets.dataset',
      'assets.metadata',
      'projects.organization_id',
    ])
    .where('assets.id', '=', id)
    .where('assets.deleted', '=', 0)
    .where('projects.deleted', '=', 0)
    .executeTakeFirst();
  return (
    row && {
      id: row.id,
      projectId: row.project_id,
      data: row.data,
      dataset: row.dataset,
      metadata: row.metadata,
      orgId: row.organization_id,
    }
  );
}

/** The size is known now: what reading the header found wrong no longer matters. */
export async function clearMediaWarning(db: Executor, assetId: string) {
  await db.updateTable('assets').set({ media_warning: null }).where('id', '=', assetId).execute();
}
