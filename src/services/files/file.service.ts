import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { FileTooLargeError, isSafeKey, safeFileName } from '../../adapters/file-store/file-store.js';
import type { AppContext } from '../../context.js';
import { invalidField, notFound } from '../../errors.js';
import type { FileType } from '../../schemas/file.js';
import type { Principal } from '../../access.js';
import { type FileLink, fileStoreOf, parseFileUrl, signedFileUrl, verifyFileLink } from './file-url.js';
import { loadProject } from '../identity/project-access.js';
import { projectStorage } from '../projects/project-view.js';
import type { ProjectRow } from '../../store/schema.js';
import { signObjectUploadUrl, signObjectUrl } from '../storages/storage.service.js';
import { payloadTooLarge } from './upload-form.js';

export const UPLOAD_URL_SECONDS = 3600;
export const READ_URL_SECONDS = 3600;
/** Links stored in records (instructions, chat asset data) outlive any session: ten years. */
export const LONG_LIVED_SECONDS = 10 * 365 * 24 * 3600;

/** First segment of a link that redirects to an object of a storage (never a file-store key). */
const STORAGE_LINK = '~storage';

/** `<projectId>/<folder>/<random>/<name>`: the random level keeps the client's name and never collides. */
export function newFileKey(projectId: string, folder: string, fileName: string): string {
  return `${projectId}/${folder}/${randomBytes(12).toString('hex')}/${fileName}`;
}

/** A long-lived GET link that signs a fresh read URL of a storage object on every use. */
export function storageObjectLink(
  ctx: AppContext,
  orgId: string,
  storageId: string,
  bucket: string,
  key: string,
  base = ctx.config.publicUrl,
) {
  const path = `${STORAGE_LINK}/${orgId}/${storageId}/${bucket}/${key}`;
  return signedFileUrl(ctx, 'GET', path, LONG_LIVED_SECONDS, base);
}

/** The storage object a long-lived storage link of the file store names, or undefined. */
export function parseStorageLink(key: string) {
  const [head, orgId, storageId, bucket, ...rest] = key.split('/');
  if (head !== STORAGE_LINK || !orgId || !storageId || !bucket || rest.length === 0) return undefined;
  return { orgId, storageId, bucket, key: rest.join('/') };
}

export function assertBucket(bucket: string | undefined, storageId: string): string {
  if (!bucket) throw invalidField('bucket', `is required with storageId ${storageId}`);
  if (!/^[A-Za-z0-9._-]{1,255}$/.test(bucket)) throw invalidField('bucket', 'is not a valid bucket name');
  return bucket;
}

/**
 * The bucket of a storage request: the one asked for, else the project's own, when `storageId`
 * is the storage the project's settings name (`exportStorageId` with `exportStorageBucket`).
 * Storages have no bucket of their own, and the Python client sends `storageId` without one.
 */
export function bucketOf(
  q: { bucket?: string | undefined },
  storageId: string,
  project: ProjectRow | undefined,
): string {
  if (q.bucket || !project) return assertBucket(q.bucket, storageId);
  const own = projectStorage(project);
  if (own.storageId !== storageId || !own.bucket) {
    throw invalidField(
      'bucket',
      `is required with storageId ${storageId} (without it, the project's exportStorageBucket is used when ` +
        'storageId is its exportStorageId)',
    );
  }
  return assertBucket(own.bucket, storageId);
}

export interface UploadUrlQuery {
  name: string;
  project: string;
  type?: FileType | undefined;
  storageId?: string | undefined;
  bucket?: string | undefined;
}

/**
 * GET /getUploadUrl: a URL to PUT the bytes to, with no header and no query string [client],
 * and (an extension) `readUrl`, a long-lived link to read the same file once it is there: what
 * an asset's `data` holds (a storage's object is read through a link of ours that signs a fresh
 * read URL on every use, as storage imports do). `base` starts our links (http/link-base.ts).
 */
export async function getUploadUrl(ctx: AppContext, p: Principal, q: UploadUrlQuery, base = ctx.config.publicUrl) {
  const { row } = await loadProject(ctx.store.db, p, q.project, 'import');
  const name = safeFileName(q.name);
  if (!name) throw invalidField('name', 'must be a file name with at least one letter or digit');
  const key = newFileKey(row.id, q.type ?? 'assets', name);
  if (q.storageId) {
    const bucket = bucketOf(q, q.storageId, row);
    return {
      uploadUrl: await signObjectUploadUrl(ctx, p.orgId, q.storageId, { bucket, key }),
      readUrl: storageObjectLink(ctx, p.orgId, q.storageId, bucket, key, base),
    };
  }
  return {
    uploadUrl: signedFileUrl(ctx, 'PUT', key, UPLOAD_URL_SECONDS, base),
    readUrl: signedFileUrl(ctx, 'GET', key, LONG_LIVED_SECONDS, base),
  };
}

export interface SignedUrlQuery {
  name: string;
  project?: string | undefined;
  storageId?: string | undefined;
  bucket?: string | undefined;
}

function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

/**
 * GET /getSignedUrl: a URL to read `name` with. Our own file store's URLs (any of our links,
 * even a PUT or an expired one) and keys get a fresh GET link once the caller may read the
 * project the key belongs to; with storageId the storage signs; any other http(s) URL is
 * public and comes back unchanged.
 */
export async function getSignedUrl(ctx: AppContext, p: Principal, q: SignedUrlQuery, base = ctx.config.publicUrl) {
  const project = q.project ? (await loadProject(ctx.store.db, p, q.project, 'read')).row : undefined;
  if (q.storageId) {
    const target = isHttpUrl(q.name)
      ? { url: q.name, ...(q.bucket ? { bucket: q.bucket } : {}) }
      : { bucket: bucketOf(q, q.storageId, project), key: q.name };
    return { signedUrl: await signObjectUrl(ctx, p.orgId, q.storageId, target) };
  }
  const link = parseFileUrl(ctx, q.name, [base, ctx.config.publicUrl]);
  if (!link && isHttpUrl(q.name)) return { signedUrl: q.name };
  const key = link ? link.key : q.name.replace(/^\/+/, '');
  const storage = parseStorageLink(key);
  if (storage) {
    if (storage.orgId !== p.orgId) throw notFound('file');
    return { signedUrl: await signObjectUrl(ctx, p.orgId, storage.storageId, storage) };
  }
  if (!isSafeKey(key)) throw invalidField('name', 'is neither an http(s) URL nor a file of this server');
  const projectId = key.split('/')[0] ?? '';
  if (q.project && q.project !== projectId) throw invalidField('name', 'is a file of another project');
  if (!q.project) await loadProject(ctx.store.db, p, projectId, 'read');
  if (!(await fileStoreOf(ctx).stat(key))) throw notFound('file');
  return { signedUrl: signedFileUrl(ctx, 'GET', key, READ_URL_SECONDS, base) };
}

/**
 * PUT to an upload link: streams the body into the file store, at most the upload limit. A
 * declared Content-Length past the limit is refused before a byte is read.
 */
export async function receiveUpload(ctx: AppContext, link: FileLink, body: Readable, declaredLength?: number) {
  verifyFileLink(ctx, 'PUT', link);
  if (!isSafeKey(link.key)) throw notFound('file');
  const limit = ctx.config.uploadLimit;
  if (declaredLength !== undefined && declaredLength > limit) throw payloadTooLarge('body', limit);
  try {
    const { size } = await fileStoreOf(ctx).put(link.key, body, { maxBytes: limit });
    return { file: { key: link.key, size } };
  } catch (err) {
    if (err instanceof FileTooLargeError) throw payloadTooLarge('body', limit);
    throw err;
  }
}

/** What a GET link serves: a file of the store, or a redirect to a freshly signed storage URL. */
export async function resolveReadLink(
  ctx: AppContext,
  link: FileLink,
): Promise<{ key: string; expiresAt: number } | { redirect: string }> {
  const expiresAt = verifyFileLink(ctx, 'GET', link);
  const storage = parseStorageLink(link.key);
  if (storage) return { redirect: await signObjectUrl(ctx, storage.orgId, storage.storageId, storage) };
  if (!isSafeKey(link.key)) throw notFound('file');
  return { key: link.key, expiresAt };
}
