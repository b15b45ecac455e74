import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/*
 * Export files kept by the server itself, in `${dataDir}/exports`, and the signed, expiring,
 * key-less links that read them: `/v2/exports/{expires}/{signature}/{file}`. The signature is
 * an HMAC-SHA256 over the file name and the expiry, under a key derived from the server key for
 * this purpose only. Everything sits in the path (no query string), so the link survives
 * clients that rebuild query strings and never shows up in the request log (routes are logged
 * by pattern).
 */

/** How long a download link of a local export stays valid. Files are removed a day later. */
export const EXPORT_LINK_SECONDS = 24 * 3600;
/** Files older than this are swept: the link lifetime plus a margin for slow downloads. */
const KEEP_MS = 2 * EXPORT_LINK_SECONDS * 1000;
/** A `.part` file this old belongs to an export that died with its process. */
const STALE_PART_MS = 6 * 3600 * 1000;

/** `<24 hex>.zip`: the only names the download route opens (no path ever reaches fs). */
const FILE_RE = /^[0-9a-f]{24}\.zip$/;
const SIGNATURE_RE = /^[A-Za-z0-9_-]{43}$/;

const keys = new WeakMap<Buffer, Buffer>();
function linkKey(serverKey: Buffer): Buffer {
  let k = keys.get(serverKey);
  if (!k) {
    k = Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), 'annotary:export-links', 32));
    keys.set(serverKey, k);
  }
  return k;
}

function mac(serverKey: Buffer, file: string, expires: number): Buffer {
  return createHmac('sha256', linkKey(serverKey)).update(`${file}\n${expires}`).digest();
}

export function exportsDir(dataDir: string): string {
  return path.join(dataDir, 'exports');
}

export function exportFileName(exportId: string): string {
  return `${exportId}.zip`;
}

/** The public URL of a local export file, valid until `now + EXPORT_LINK_SECONDS`. */
export function signExportLink(publicUrl: string, serverKey: Buffer, file: string, now: number): string {
  const expires = Math.floor(now / 1000) + EXPORT_LINK_SECONDS;
  const signature = mac(serverKey, file, expires).toString('base64url');
  return `${publicUrl}/v2/exports/${expires}/${signature}/${file}`;
}

export type LinkCheck = { ok: true; file: string } | { ok: false; reason: 'expired' | 'invalid' };

/**
 * Checks a download link's parts. The signature is compared in constant time, and before the
 * expiry is looked at, so a tampered link and an expired one cost the same.
 */
export function checkExportLink(
  serverKey: Buffer,
  parts: { expires: string; signature: string; file: string },
  now: number,
): LinkCheck {
  if (!FILE_RE.test(parts.file) || !/^\d{1,12}$/.test(parts.expires) || !SIGNATURE_RE.test(parts.signature)) {
    return { ok: false, reason: 'invalid' };
  }
  const expires = Number(parts.expires);
  const given = Buffer.from(parts.signature, 'base64url');
  const expected = mac(serverKey, parts.file, expires);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  if (Math.floor(now / 1000) >= expires) return { ok: false, reason: 'expired' };
  return { ok: true, file: parts.file };
}

/**
 * Removes export files whose links have long expired and parts of exports that died. Runs at
 * the start of each export, so the folder stays bounded without a scheduler.
 */
export async function sweepExports(dir: string, now: number): Promise<number> {
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const isPart = name.endsWith('.part');
    if (!isPart && !FILE_RE.test(name)) continue;
    const file = path.join(dir, name);
    try {
      const stat = await fs.promises.stat(file);
      if (now - stat.mtimeMs > (isPart ? STALE_PART_MS : KEEP_MS)) {
        await fs.promises.unlink(file);
        removed++;
      }
    } catch {
      // Another process swept it first.
    }
  }
  return removed;
}
