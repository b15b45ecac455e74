import { putFileToSignedUrl } from '../../adapters/signed-upload.js';
import type { AppContext } from '../../context.js';
import { AppError, badRequest, forbidden, notFound } from '../../errors.js';
import { fileStoreOf } from './file-url.js';
import { signObjectUploadUrl } from '../storages/storage.service.js';

/*
 * Copies a file of our file store into an object of an organization's storage, through the
 * storage's own signed upload URL (the storage service signs; no vendor SDK here). The bytes
 * are read from our store because a provider PUT needs the length up front, which a multipart
 * part does not tell. Provider answers map to 4xx as DECISIONS 8 asks, never a 500.
 */
export async function copyToStorage(
  ctx: AppContext,
  orgId: string,
  target: { storageId: string; bucket: string; key: string },
  localKey: string,
): Promise<void> {
  const store = fileStoreOf(ctx);
  if (!(await store.stat(localKey))) throw notFound('file');
  const url = await signObjectUploadUrl(ctx, orgId, target.storageId, { bucket: target.bucket, key: target.key });
  const outcome = await putFileToSignedUrl(url, store.pathOf(localKey));
  if (outcome.ok) return;
  // Status and provider code only: the signed URL never goes to a log.
  ctx.log.warn(
    { storageId: target.storageId, status: outcome.status, code: outcome.code },
    'storage refused an upload',
  );
  const code = outcome.code ? ` (${outcome.code})` : '';
  if (outcome.status === 0) throw badRequest(`the storage host could not be reached to store the file${code}`);
  if (outcome.status === 404) {
    throw new AppError('NOT_FOUND', `bucket "${target.bucket}" does not exist in the storage${code}`);
  }
  if (outcome.status === 401 || outcome.status === 403) {
    throw forbidden(`the storage refused the credentials of this upload${code}`);
  }
  throw badRequest(`the storage refused the upload (status ${outcome.status}${code})`);
}
