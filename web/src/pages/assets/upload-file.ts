import { importChunk, uploadUrlFor } from '../../api/assets';
import { ApiError, currentCsrfToken } from '../../api/client';
import { errorText } from '../../components/error-text';
import { makeThumbnail, thumbnailName } from './thumbnail';

/*
 * One file's way into the project: its bytes PUT to a signed upload URL (getUploadUrl: the file
 * store, or the project's storage), a thumbnail beside it for images and videos, then the asset
 * made by an import whose `data` is the lasting read link getUploadUrl answered with it. Each
 * file is whole or absent on the server (an upload that stops leaves nothing), so resuming is per
 * file: a file that failed is sent again whole, and one whose bytes are stored but whose asset
 * was not made only asks for the asset again.
 */

export type UploadStatus = 'queued' | 'uploading' | 'importing' | 'done' | 'failed' | 'skipped';

export interface UploadItem {
  id: number;
  file: File;
  /** The asset's externalId: the path inside the folder it came in. */
  path: string;
  status: UploadStatus;
  /** Bytes of the file sent so far. */
  sent: number;
  /** Why it failed or was skipped, for the person. */
  note?: string | undefined;
  /** Set once the bytes are stored: a retry then only makes the asset. */
  stored?: { data: string; metadata: Record<string, unknown> } | undefined;
}

export interface UploadTarget {
  projectId: string;
  /** The project's storage; undefined: the server's file store. */
  storageId?: string | undefined;
  batchIds: string[];
}

/**
 * A PUT the browser sends itself, for its upload progress (fetch reports none). A PUT to our own
 * origin carries the session cookie, so it carries the CSRF token too; a storage never sees it.
 */
function put(url: string, body: Blob, onProgress?: (sent: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    const csrf = currentCsrfToken();
    if (url.startsWith('/') && csrf) xhr.setRequestHeader('x-csrf-token', csrf);
    // An Azure SAS upload needs its blob type named; other stores ignore the header.
    if (/[?&]sr=b(&|$)/.test(url)) xhr.setRequestHeader('x-ms-blob-type', 'BlockBlob');
    if (onProgress) xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let message = `the upload was refused (HTTP ${xhr.status})`;
      try {
        const body = JSON.parse(xhr.responseText) as { message?: unknown };
        if (typeof body.message === 'string') message = body.message;
      } catch {
        // A storage answers XML: the status says enough.
      }
      reject(new ApiError(message, xhr.status));
    };
    xhr.onerror = () => reject(new ApiError('the connection was lost during the upload', 0));
    xhr.onabort = () => reject(new ApiError('the upload was stopped', 0));
    xhr.send(body);
  });
}

/**
 * Links of the server's own file store are signed on their path alone: sent to the address the
 * console was opened on, they need no cross-origin request whatever ANNOTARY_PUBLIC_URL says.
 */
function putUrl(target: UploadTarget, uploadUrl: string): string {
  return target.storageId ? uploadUrl : new URL(uploadUrl).pathname;
}

async function store(target: UploadTarget, item: UploadItem, progress: (sent: number) => void) {
  const thumb = await makeThumbnail(item.file);
  const main = await uploadUrlFor(target.projectId, item.file.name, target.storageId);
  await put(putUrl(target, main.uploadUrl), item.file, progress);
  const metadata: Record<string, unknown> = {};
  if (thumb) {
    const small = await uploadUrlFor(target.projectId, thumbnailName(item.file.name, thumb.blob), target.storageId);
    await put(putUrl(target, small.uploadUrl), thumb.blob);
    Object.assign(metadata, { width: thumb.width, height: thumb.height, thumbnail: small.readUrl });
  }
  return { data: main.readUrl, metadata };
}

/** A file's requests over the plan's limit wait this long, this many times, before it fails. */
const LIMIT_WAIT_MS = 15_000;
const LIMIT_WAITS = 8;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends one item as far as it can; `report` tells each change. Never throws: a failure is a status. */
export async function sendItem(
  target: UploadTarget,
  item: UploadItem,
  report: (patch: Partial<UploadItem>) => void,
): Promise<void> {
  let stored = item.stored;
  for (let waits = 0; ; waits++) {
    try {
      if (!stored) {
        report({ status: 'uploading', sent: 0, note: undefined });
        stored = await store(target, item, (sent) => report({ sent }));
        report({ stored, sent: item.file.size });
      }
      report({ status: 'importing', note: undefined });
      const asset = { data: stored.data, externalId: item.path, metadata: stored.metadata };
      await importChunk(target.projectId, [asset], [...target.batchIds]);
      report({ status: 'done' });
      return;
    } catch (err) {
      // A large folder meets the organization's request limit (a few requests a file): wait.
      if (err instanceof ApiError && err.status === 429 && waits < LIMIT_WAITS) {
        report({ note: 'waiting for the request limit' });
        await pause(LIMIT_WAIT_MS);
        continue;
      }
      const already = err instanceof ApiError && err.status === 409;
      report(
        already ? { status: 'skipped', note: 'already in the project' } : { status: 'failed', note: errorText(err) },
      );
      return;
    }
  }
}
