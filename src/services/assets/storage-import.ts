import type { AppContext } from '../../context.js';
import type { StorageImportJob } from '../../jobs/kinds.js';
import type { JobHandler } from '../../jobs/registry.js';
import { chunked } from '../../store/chunks.js';
import { liveAssetsBy } from '../../store/repositories/asset.repository.js';
import { findUserByEmail } from '../../store/repositories/identity.repository.js';
import type { OrgRole, Principal } from '../../access.js';
import { importAssets } from './asset-import.service.js';
import { storageObjectLink } from '../files/file.service.js';
import { withStorage } from '../storages/storage.service.js';

/** Whether a key's extension is one of `wanted` (every key when there is no filter). */
export function hasExtension(key: string, wanted: ReadonlySet<string> | undefined): boolean {
  if (!wanted) return true;
  const name = key.slice(key.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 && wanted.has(name.slice(dot + 1).toLowerCase());
}

/** The files under the job's folder (recursively) with a wanted extension; stops past `max`. */
export async function listFolderKeys(ctx: AppContext, job: StorageImportJob, max = Infinity): Promise<string[]> {
  const wanted = job.extensions ? new Set(job.extensions) : undefined;
  return withStorage(ctx, job.orgId, job.storageId, job.bucket, async (adapter) => {
    const found: string[] = [];
    for await (const page of adapter.listKeys(job.bucket, job.prefix)) {
      found.push(...page.filter((key) => hasExtension(key, wanted)));
      if (found.length > max) break;
    }
    return found;
  });
}

/** Assets per import transaction: each chunk commits on its own, so a large folder shows progress. */
export const IMPORT_CHUNK = 5000;

/** The externalIds of `ids` already used by live assets of the project. */
async function existingExternalIds(ctx: AppContext, projectId: string, ids: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const part of chunked(ids)) {
    for (const a of await liveAssetsBy(ctx.store.db, projectId, 'external_id', part)) out.add(a.external_id);
  }
  return out;
}

/** Imports the keys (skipping those already in the project) in chunks; answers the counts. */
export async function importStorageKeys(ctx: AppContext, p: Principal, job: StorageImportJob, keys: string[]) {
  let assetsCreated = 0;
  let skipped = 0;
  for (let i = 0; i < keys.length; i += IMPORT_CHUNK) {
    const slice = keys.slice(i, i + IMPORT_CHUNK);
    const externalIdOf = (key: string) => key.slice(job.prefix.length) || key;
    const known = await existingExternalIds(ctx, job.projectId, slice.map(externalIdOf));
    const fresh = slice.filter((key) => !known.has(externalIdOf(key)));
    skipped += slice.length - fresh.length;
    if (!fresh.length) continue;
    const assets = fresh.map((key) => ({
      data: storageObjectLink(ctx, job.orgId, job.storageId, job.bucket, key, job.linkBase),
      externalId: externalIdOf(key),
      storage: job.storageId,
    }));
    assetsCreated += (await importAssets(ctx, p, job.projectId, { assets, batches: job.batches })).assetsCreated;
  }
  return { assetsCreated, skipped };
}

/** The worker's side: lists the folder again (or takes the chosen keys) and imports it all. */
export function storageImportHandler(ctx: AppContext): JobHandler<StorageImportJob> {
  return async (job) => {
    const payload = job.payload;
    const user = await findUserByEmail(ctx.store.db, payload.email);
    if (!user || user.organization_id !== payload.orgId) {
      ctx.log.warn({ jobId: job.id, projectId: payload.projectId }, 'storage import dropped: its user is gone');
      return;
    }
    const p: Principal = {
      keyId: '',
      userId: user.id,
      email: user.email,
      orgId: user.organization_id,
      orgRole: user.org_role as OrgRole,
      plan: '',
      planLimit: null,
    };
    const keys = payload.keys ?? (await listFolderKeys(ctx, payload));
    const result = await importStorageKeys(ctx, p, payload, keys);
    ctx.log.info({ jobId: job.id, projectId: payload.projectId, ...result }, 'storage import done');
  };
}
