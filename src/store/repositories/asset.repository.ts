import type { Executor } from '../db.js';
import type { AssetRow } from '../schema.js';
import { assetInBatches } from './in-batches.js';

/** What the asset listing filters on; every list given is matched (an empty one matches nothing). */
export interface AssetPageFilter {
  ids?: readonly string[] | undefined;
  externalIds?: readonly string[] | undefined;
  /** Whether the asset's default task holds a pre-label. */
  isPreLabeled?: boolean | undefined;
  /** Batch ids the asset belongs to, all of them. */
  batchIds?: readonly string[] | undefined;
}

/** One page of the project's live assets in creation order, and how many match in all. */
export async function assetPage(
  db: Executor,
  projectId: string,
  f: AssetPageFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: AssetRow[]; total: number }> {
  let base = db.selectFrom('assets as a').where('a.project_id', '=', projectId).where('a.deleted', '=', 0);
  if (f.ids) base = base.where('a.id', 'in', f.ids.length ? f.ids : ['']);
  if (f.externalIds) base = base.where('a.external_id', 'in', f.externalIds.length ? f.externalIds : ['']);
  if (f.isPreLabeled !== undefined) {
    const flag = f.isPreLabeled ? 1 : 0;
    base = base.where((eb) =>
      eb.exists(
        eb
          .selectFrom('tasks as t')
          .select('t.id')
          .whereRef('t.asset_id', '=', 'a.id')
          .where('t.type', '=', 'default')
          .where('t.is_pre_labeled', '=', flag),
      ),
    );
  }
  for (const batchId of f.batchIds ?? []) {
    base = base.where(assetInBatches('a.id', [batchId]));
  }
  const [rows, count] = await Promise.all([
    base.selectAll('a').orderBy('a.created_at').orderBy('a.id').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** The batch links of the assets, by batch id. */
export async function batchLinksOf(db: Executor, assetIds: readonly string[]) {
  if (assetIds.length === 0) return [];
  return db
    .selectFrom('asset_batches')
    .select(['asset_id', 'batch_id'])
    .where('asset_id', 'in', assetIds)
    .orderBy('batch_id')
    .execute();
}

/** The live default task of each of the assets, with whether it holds a pre-label. */
export async function defaultTaskStates(db: Executor, assetIds: readonly string[]) {
  if (assetIds.length === 0) return [];
  return db
    .selectFrom('tasks')
    .select(['id', 'asset_id', 'is_pre_labeled'])
    .where('asset_id', 'in', assetIds)
    .where('type', '=', 'default')
    .where('deleted', '=', 0)
    .execute();
}

/** Soft-deletes those of the assets still live in the project, and all their tasks; answers how many assets. */
export async function softDeleteAssets(db: Executor, projectId: string, ids: readonly string[]): Promise<number> {
  const res = await db
    .updateTable('assets')
    .set({ deleted: 1 })
    .where('project_id', '=', projectId)
    .where('deleted', '=', 0)
    .where('id', 'in', ids)
    .executeTakeFirst();
  await db
    .updateTable('tasks')
    .set({ deleted: 1 })
    .where('project_id', '=', projectId)
    .where('asset_id', 'in', ids)
    .execute();
  return Number(res.numUpdatedRows);
}

/** The project's live assets whose id (or external id) is one of `values`: id, external id, metadata. */
export async function liveAssetsBy(
  db: Executor,
  projectId: string,
  column: 'id' | 'external_id',
  values: readonly string[],
) {
  return db
    .selectFrom('assets')
    .select(['id', 'external_id', 'metadata'])
    .where('project_id', '=', projectId)
    .where('deleted', '=', 0)
    .where(column, 'in', values)
    .execute();
}

/** The metadata of each of the assets. */
export async function assetMetadata(db: Executor, ids: readonly string[]) {
  return db.selectFrom('assets').select(['id', 'metadata']).where('id', 'in', ids).execute();
}

/** The project's live assets whose `column` is one of `values`, in creation order, locked on PostgreSQL. */
export async function lockAssetsBy(
  db: Executor,
  engine: string,
  projectId: string,
  column: 'external_id' | 'data',
  values: readonly string[],
) {
  const query = db
    .selectFrom('assets')
    .select(['id', 'external_id', 'data', 'attachments'])
    .where('project_id', '=', projectId)
    .where('deleted', '=', 0)
    .where(column, 'in', values)
    .orderBy('created_at')
    .orderBy('id');
  return engine === 'postgres' ? query.forUpdate().execute() : query.execute();
}

export async function setAttachments(db: Executor, assetId: string, attachments: string): Promise<void> {
  await db.updateTable('assets').set({ attachments }).where('id', '=', assetId).execute();
}

/** The external ids among `externalIds` that assets of the project use, deleted assets included. */
export async function externalIdsInProject(db: Executor, projectId: string, externalIds: readonly string[]) {
  return db
    .selectFrom('assets')
    .select(['external_id', 'deleted'])
    .where('project_id', '=', projectId)
    .where('external_id', 'in', externalIds)
    .execute();
}

/** The project of a live asset in a live project of the organization. */
export async function projectOfAsset(db: Executor, assetId: string, orgId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('assets')
    .innerJoin('projects', 'projects.id', 'assets.project_id')
    .select('assets.project_id')
    .where('assets.id', '=', assetId)
    .where('assets.deleted', '=', 0)
    .where('projects.organization_id', '=', orgId)
    .where('projects.deleted', '=', 0)
    .executeTakeFirst();
  return row?.project_id;
}

/** Puts assets in batches; a link that exists already is kept. */
export async function linkAssetsToBatches(db: Executor, links: readonly { asset_id: string; batch_id: string }[]) {
  if (links.length === 0) return;
  await db
    .insertInto('asset_batches')
    .values(links)
    .onConflict((oc) => oc.columns(['asset_id', 'batch_id']).doNothing())
    .execute();
}

/** Sets the priority of every task (consensus copies too) of the assets. */
export async function setTaskPriorityOfAssets(db: Executor, assetIds: readonly string[], priority: number) {
  await db.updateTable('tasks').set({ priority }).where('asset_id', 'in', assetIds).execute();
}
