import type { Static } from 'typebox';
import type { AppContext } from '../../context.js';
import { invalidField } from '../../errors.js';
import { newId } from '../../ids.js';
import { STORAGE_IMPORT_JOB, type StorageImportJob } from '../../jobs/kinds.js';
import { insertJobs } from '../../jobs/queue.js';
import type { FileExplorerRequest } from '../../schemas/file-explorer.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { folderPrefix, withStorage } from '../storages/storage.service.js';
import { hasExtension, importStorageKeys, listFolderKeys } from './storage-import.js';

export type FileExplorerInput = Static<typeof FileExplorerRequest>;

/** Up to this many files are imported during the request; a larger folder goes to a job. */
export const FOREGROUND_IMPORT_LIMIT = 1000;

const extensionSet = (list: string[] | undefined) =>
  list?.length ? new Set(list.map((e) => e.replace(/^\./, '').toLowerCase())) : undefined;

const lastSegment = (path: string) => path.replace(/\/$/, '').split('/').pop() ?? path;

/** One folder level: sub-folders and files of one provider page, and the token of the next. */
async function browse(ctx: AppContext, p: Principal, input: FileExplorerInput) {
  const prefix = folderPrefix(input.folder ?? '');
  const wanted = extensionSet(input.extensions);
  const level = await withStorage(ctx, p.orgId, input.storageId, input.bucket, (adapter) =>
    adapter.listLevel(input.bucket, prefix, { token: input.scrollToken, size: input.limit ?? 1000 }),
  );
  return {
    folder: prefix,
    folders: level.folders.map((path) => ({ name: lastSegment(path), path })),
    files: level.files.filter((key) => hasExtension(key, wanted)).map((key) => ({ name: lastSegment(key), key })),
    scrollToken: level.nextToken ?? null,
  };
}

/** The keys an upload names: chosen files (names in the folder, or full keys), extension-filtered. */
function chosenKeys(prefix: string, files: string[], wanted: Set<string> | undefined): string[] {
  const keys = files.map((f) => (prefix && f.startsWith(prefix) ? f : prefix + f.replace(/^\/+/, '')));
  return [...new Set(keys)].filter((key) => hasExtension(key, wanted));
}

/**
 * `upload: true`: the chosen files, or every file under the folder (recursively), become assets
 * of `projectId` with a long-lived link to each object. Up to FOREGROUND_IMPORT_LIMIT files are
 * imported in the request; more are imported by a durable job in chunks, and the answer says
 * it was queued. Files whose externalId (the key under the folder) is already in the project are
 * skipped, so an import can be run again to finish one that stopped.
 */
async function upload(ctx: AppContext, p: Principal, input: FileExplorerInput, linkBase: string) {
  if (!input.projectId) throw invalidField('projectId', 'is required with upload: true');
  const { row } = await loadProject(ctx.store.db, p, input.projectId, 'import');
  const prefix = folderPrefix(input.folder ?? '');
  const wanted = extensionSet(input.extensions);
  const job: StorageImportJob = {
    projectId: row.id,
    orgId: p.orgId,
    email: p.email,
    storageId: input.storageId,
    bucket: input.bucket,
    prefix,
    extensions: wanted ? [...wanted] : undefined,
    batches: input.batches,
    keys: input.files?.length ? chosenKeys(prefix, input.files, wanted) : undefined,
    linkBase,
  };
  // At most one key past the limit is listed: enough to know the folder goes to a job.
  const keys = job.keys ?? (await listFolderKeys(ctx, job, FOREGROUND_IMPORT_LIMIT));
  if (keys.length > FOREGROUND_IMPORT_LIMIT) {
    const jobId = newId(ctx.clock.now());
    await insertJobs(ctx.store.db, [{ id: jobId, kind: STORAGE_IMPORT_JOB, payload: job }], ctx.clock);
    ctx.log.info({ projectId: row.id, storageId: input.storageId, jobId }, 'storage import queued');
    return { queued: true, jobId };
  }
  return { queued: false, ...(await importStorageKeys(ctx, p, job, keys)) };
}

/**
 * POST /file-explorer [client]: browses without `upload`, imports with it. Fields that do not
 * apply to the chosen action are ignored, as unknown ones are.
 */
export async function fileExplorer(
  ctx: AppContext,
  p: Principal,
  input: FileExplorerInput,
  /** The address the new assets' links start with (http/link-base.ts); kept in a queued job. */
  linkBase = ctx.config.publicUrl,
) {
  return input.upload === true ? { upload: await upload(ctx, p, input, linkBase) } : await browse(ctx, p, input);
}
