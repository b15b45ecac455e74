import type { Annotary } from '../client/index.js';
import { DataError, type ImportRow } from './import-rows.js';
import { asRecord } from './output.js';

/**
 * The object's lasting address, from one of the signed read URLs the listing gives: the URL
 * without its signature. The asset keeps `storage`, so the server signs it again on each read.
 * The externalId is the object's key (the path without the bucket), unique in the bucket.
 */
export function storageRow(signedUrl: string, bucket: string, storageId: string, where: string): ImportRow {
  let url: URL;
  try {
    url = new URL(signedUrl);
  } catch {
    throw new DataError(`${where}: the storage listing gave "${signedUrl.slice(0, 100)}", not a URL`);
  }
  url.search = '';
  url.hash = '';
  const path = decodeURIComponent(url.pathname).replace(/^\/+/, '');
  const key = path.startsWith(`${bucket}/`) ? path.slice(bucket.length + 1) : path;
  return { data: url.href, externalId: key || url.href, batches: [], storage: storageId, where };
}

/** Every file under `path` of the bucket, as rows to import. */
export async function storageRows(
  client: Annotary,
  storageId: string,
  bucket: string,
  path: string,
): Promise<ImportRow[]> {
  const data = asRecord(await client.storages.files(storageId, { bucketName: bucket, path, getSignedUrls: 'true' }));
  const files = Array.isArray(data.files) ? data.files : [];
  return files.map((f, i) => storageRow(String(f), bucket, storageId, `file ${i + 1}`));
}
