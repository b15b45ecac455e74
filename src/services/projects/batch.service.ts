import type { AppContext } from '../../context.js';
import { AppError, conflict, invalidField } from '../../errors.js';
import { isId } from '../../ids.js';
import * as assetRepo from '../../store/repositories/asset.repository.js';
import { findBatchByName, listBatches } from '../../store/repositories/project.repository.js';
import { chunked } from '../../store/chunks.js';
import type { Principal } from '../../access.js';
import { type BatchInput, listBatchViews, upsertBatches } from './batches.js';
import { loadProject } from '../identity/project-access.js';

/** GET /batches/{projectId} */
export async function getBatches(ctx: AppContext, p: Principal, projectId: string) {
  const { row } = await loadProject(ctx.store.db, p, projectId, 'read');
  const batches = await listBatchViews(ctx.store.db, row.id);
  return { batches, total: batches.length };
}

/** POST /batches/{projectId}: a string creates one batch; an array creates the missing ones. */
export async function postBatches(ctx: AppContext, p: Principal, projectId: string, input: string | BatchInput[]) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'import');
    if (typeof input === 'string') {
      const name = input.trim();
      const clash = await findBatchByName(trx, row.id, name);
      if (clash) throw conflict(`a batch named "${name}" already exists`);
    }
    const batches = await upsertBatches(trx, ctx.clock, row.id, typeof input === 'string' ? [{ name: input }] : input);
    return { batches, total: batches.length };
  });
}

/** POST /assignBatches: adds assets to batches (by name or id), all or nothing. */
export async function assignBatches(
  ctx: AppContext,
  p: Principal,
  input: { batches: string | string[]; assets: string | string[]; project?: string | undefined },
) {
  const refs = Array.isArray(input.batches) ? input.batches : [input.batches];
  const assetIds = [...new Set(Array.isArray(input.assets) ? input.assets : [input.assets])];
  return ctx.store.db.transaction().execute(async (trx) => {
    let projectId = input.project;
    const noSuchAsset = invalidField('assets[0]', 'no such asset');
    if (projectId === undefined) {
      // The project is the first asset's: an asset the caller cannot see (another organization,
      // a project without a role, deleted) answers exactly like one that does not exist.
      const first = isId(assetIds[0]) ? await assetRepo.projectOfAsset(trx, assetIds[0], p.orgId) : undefined;
      if (!first) throw noSuchAsset;
      projectId = first;
    }
    const { row } = await loadProject(trx, p, projectId, 'import').catch((err: unknown) => {
      throw input.project === undefined && err instanceof AppError && err.code === 'NOT_FOUND' ? noSuchAsset : err;
    });
    const batches = await listBatches(trx, row.id);
    const resolved = refs.map((ref, i) => {
      const b = batches.find((x) => x.id === ref) ?? batches.find((x) => x.name === ref);
      if (!b) throw invalidField(`batches[${i}]`, `no batch "${ref}" in this project`);
      return b;
    });
    const found = new Set<string>();
    for (const part of chunked(assetIds)) {
      for (const a of await assetRepo.liveAssetsBy(trx, row.id, 'id', part)) found.add(a.id);
    }
    const missing = assetIds.findIndex((id) => !found.has(id));
    if (missing >= 0) throw invalidField(`assets[${missing}]`, 'no such asset in this project');
    const links = assetIds.flatMap((asset_id) => resolved.map((b) => ({ asset_id, batch_id: b.id })));
    for (const part of chunked(links, 10_000)) {
      await assetRepo.linkAssetsToBatches(trx, part);
    }
    return { assets: assetIds.length, batches: resolved.map((b) => ({ _id: b.id, name: b.name })) };
  });
}
