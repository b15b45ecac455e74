import fs from 'node:fs';

/*
 * PUTs a local file to a pre-signed upload URL (S3, GCS, Azure), streaming it from disk. One
 * request, no SDK: the storage service signs, this sends. The body is sent with its length, as
 * pre-signed S3 PUTs refuse chunked bodies. `x-ms-blob-type` is what Azure needs on a blob PUT;
 * S3 and GCS do not sign or check it.
 */

export type UploadOutcome =
  { ok: true } | { ok: false; status: number; code: string | undefined } | { ok: false; status: 0; code: string };

/** Upload timeout per file: generous, exports can be large. */
const BODY_TIMEOUT_MS = 15 * 60_000;

/** A provider's XML/JSON error code (`NoSuchBucket`, `AccessDenied`...), never its free text. */
function errorCodeOf(body: string): string | undefined {
  const xml = /<Code>([A-Za-z0-9_.-]{1,64})<\/Code>/.exec(body)?.[1];
  if (xml) return xml;
  const json = /"reason"\s*:\s*"([A-Za-z0-9_.-]{1,64})"/.exec(body)?.[1];
  return json;
}

function networkCodeOf(err: unknown): string {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth += 1) {
    const code = (e as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return 'network error';
}

export async function putFileToSignedUrl(url: string, file: string): Promise<UploadOutcome> {
  const { size } = await fs.promises.stat(file);
  const { request } = await import('undici'); // loaded with the first upload
  try {
    const res = await request(url, {
      method: 'PUT',
      body: fs.createReadStream(file),
      // No content-type: a V2-signed GCS URL signs it (as empty), and S3 and Azure do not need it.
      headers: { 'content-length': String(size), 'x-ms-blob-type': 'BlockBlob' },
      bodyTimeout: BODY_TIMEOUT_MS,
      headersTimeout: BODY_TIMEOUT_MS,
    });
    const text = await res.body.text();
    if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true };
    return { ok: false, status: res.statusCode, code: errorCodeOf(text.slice(0, 4096)) };
  } catch (err) {
    return { ok: false, status: 0, code: networkCodeOf(err) };
  }
}
