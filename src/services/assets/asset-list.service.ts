import type { AppContext } from '../../context.js';
import { invalidField } from '../../errors.js';
import { chunked } from '../../store/chunks.js';
import * as assetRepo from '../../store/repositories/asset.repository.js';
import { addToAssetCount } from '../../store/repositories/project.repository.js';
import type { Principal } from '../../access.js';
import { batchResolver } from './asset.service.js';
import { loadProject } from '../identity/project-access.js';

export interface AssetListQuery {
  page: number;
  limit: number;
  filters?: string | undefined;
}

interface AssetFilters {
  ids?: string[];
  externalIds?: string[];
  isPreLabeled?: boolean;
  batches?: string[];
}

function stringList(value: unknown, field: string): string[] {
  const list = Array.isArray(value) ? value : [value];
  if (!list.every((v) => typeof v === 'string') || list.length > 10_000) {
    throw invalidField(field, 'must be a string or an array of strings');
  }
  return list as string[];
}

/** `filters` JSON of the asset listing: `_id`, `externalId`, `isPreLabeled`, `batches` (all of them). */
export function parseAssetFilters(raw: string | undefined): AssetFilters {
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidField('filters', 'must be a JSON object');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw invalidField('filters', 'must be a JSON object');
  const out: AssetFilters = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (key === '_id') out.ids = stringList(value, 'filters._id');
    else if (key === 'externalId') out.externalIds = stringList(value, 'filters.externalId');
    else if (key === 'batches') out.batches = stringList(value, 'filters.batches');
    else if (key === 'isPreLabeled') {
      if (typeof value !== 'boolean') throw invalidField('filters.isPreLabeled', 'must be true or false');
      out.isPreLabeled = value;
    } else throw invalidField(`filters.${key}`, 'cannot filter on this; use _id, externalId, isPreLabeled, batches');
  }
  return out;
}

export async function listAssets(ctx: AppContext, p: Principal, projectId: string, q: AssetListQuery) {
  const db = ctx.store.db;
  const { row } = await loadProject(db, p, projectId, 'readAll');
  const f = parseAssetFilters(q.filters);
  let batchIds: string[] | undefined;
  if (f.batches?.length) {
    const resolve = await batchResolver(db, row.id);
    batchIds = f.batches.map((ref) => resolve(ref)?.id ?? ref);
  }
  const { rows, total } = await assetRepo.assetPage(
    db,
    row.id,
    { ids: f.ids, externalIds: f.externalIds, isPreLabeled: f.isPreLabeled, batchIds },
    { offset: (q.page - 1) * q.limit, limit: q.limit },
  );
  const ids = rows.map((r) => r.id);
  const links = await assetRepo.batchLinksOf(db, ids);
  const tasks = await assetRepo.defaultTaskStates(db, ids);
  const taskByAsset = new Map(tasks.map((t) => [t.asset_id, t]));
  const batchesByAsset = new Map<string, string[]>();
  for (const l of links) batchesByAsset.set(l.asset_id, [...(batchesByAsset.get(l.asset_id) ?? []), l.batch_id]);
  const assets = rows.map((a) => {
    const task = taskByAsset.get(a.id);
    return {
      _id: a.id,
      project: a.project_id,
      externalId: a.external_id,
      data: a.data,
      contextData: a.context_data === null ? null : (JSON.parse(a.context_data) as unknown),
      metadata: a.metadata === null ? {} : (JSON.parse(a.metadata) as unknown),
      ...(a.dataset === null ? {} : { dataset: JSON.parse(a.dataset) as unknown }),
      mediaWarning: a.media_warning,
      storage: a.storage_id,
      attachments: JSON.parse(a.attachments) as unknown,
      batches: batchesByAsset.get(a.id) ?? [],
      taskId: task?.id ?? null,
      isPreLabeled: task?.is_pre_labeled === 1,
      createdAt: a.created_at,
      createdBy: a.created_by,
    };
  });
  return { assets, total };
}

/** DELETE /project/{id}/assets: soft-deletes the assets and their tasks (copies included). */
export async function deleteAssets(ctx: AppContext, p: Principal, projectId: string, assetIds: string[]) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'import');
    let deleted = 0;
    for (const ids of chunked([...new Set(assetIds)])) {
      deleted += await assetRepo.softDeleteAssets(trx, row.id, ids);
    }
    await addToAssetCount(trx, row.id, -deleted);
    return { deletedCount: deleted };
  });
}
