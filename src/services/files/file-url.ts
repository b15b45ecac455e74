import path from 'node:path';
import {
  expiryAfter,
  linkExpired,
  linkSignatureMatches,
  parseLinkExpiry,
  signLink,
} from '../../adapters/crypto/signed-link.js';
import { LocalFileStore } from '../../adapters/file-store/local.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';

/*
 * Expiring signed paths of the server's file store: `<base>/files/<expiry>/<sig>/<key>`, `base`
 * being the address of the request the link answers (http/link-base.ts). The signature does not
 * cover the address: a link of ours works on any address the server is reached at.
 * The signature travels in the path because the Python client PUTs to the upload URL with no
 * query string and no header [client]. sig = base64url HMAC-SHA256 over method, expiry (Unix
 * seconds) and key, under a key derived from the server key for this one purpose, so the server
 * key is never used directly for two jobs; adapters/crypto/signed-link.ts signs and checks it,
 * as it does the export download links. A GET link also serves HEAD; a PUT link only PUT.
 */

export const FILES_ROUTE = '/files';
const PURPOSE = 'annotary:file-links';
export type LinkMethod = 'GET' | 'PUT';

export interface FileLink {
  expiry: string;
  sig: string;
  key: string;
}

function signedMessage(method: LinkMethod, key: string, expiry: number): string {
  return `${method}\n${expiry}\n${key}`;
}

/** `/files/<expiry>/<sig>/<key>`, valid for `ttlSeconds` from now (the context's clock). */
export function signedFilePath(ctx: AppContext, method: LinkMethod, key: string, ttlSeconds: number): string {
  const expiry = expiryAfter(ctx.clock.now(), ttlSeconds);
  return `${FILES_ROUTE}/${expiry}/${signLink(ctx.secretKey, PURPOSE, signedMessage(method, key, expiry))}/${key}`;
}

export function signedFileUrl(
  ctx: AppContext,
  method: LinkMethod,
  key: string,
  ttlSeconds: number,
  base = ctx.config.publicUrl,
): string {
  return base + signedFilePath(ctx, method, key, ttlSeconds);
}

/**
 * Checks a link in constant time; 403 when tampered with or expired. Returns the expiry in
 * Unix seconds. The signature is checked first, so an edited expiry reads as tampering.
 */
export function verifyFileLink(ctx: AppContext, method: LinkMethod, link: FileLink): number {
  const expiry = parseLinkExpiry(link.expiry);
  const valid =
    expiry !== undefined &&
    linkSignatureMatches(ctx.secretKey, PURPOSE, signedMessage(method, link.key, expiry), link.sig);
  if (!valid) throw new AppError('FORBIDDEN', 'the signature of this file link is not valid');
  if (linkExpired(expiry, ctx.clock.now()))
    throw new AppError('FORBIDDEN', 'this file link has expired; ask for a new one');
  return expiry;
}

/** Whether the link's signature is ours, for either method, whatever its expiry. */
function signedByUs(ctx: AppContext, link: FileLink): boolean {
  const expiry = parseLinkExpiry(link.expiry);
  if (expiry === undefined) return false;
  return (['GET', 'PUT'] as const).some((method) =>
    linkSignatureMatches(ctx.secretKey, PURPOSE, signedMessage(method, link.key, expiry), link.sig),
  );
}

/**
 * The link inside a URL of this server's file store (any expiry, any method; the query and
 * fragment are ignored), or undefined for any other URL. Ours means on one of `bases` (the
 * request's and the configured address), or, on any address, carrying our signature: links were
 * handed out on whatever address their request came to.
 */
export function parseFileUrl(
  ctx: AppContext,
  value: string,
  bases: string[] = [ctx.config.publicUrl],
): FileLink | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  for (const candidate of bases) {
    let base: URL;
    try {
      base = new URL(candidate);
    } catch {
      continue;
    }
    const prefix = `${base.pathname.replace(/\/+$/, '')}${FILES_ROUTE}/`;
    if (!url.pathname.startsWith(prefix)) continue;
    const link = linkIn(url.pathname.slice(prefix.length));
    if (link && (url.origin === base.origin || signedByUs(ctx, link))) return link;
  }
  return undefined;
}

function linkIn(path: string): FileLink | undefined {
  const [expiry, sig, ...rest] = path.split('/');
  if (expiry === undefined || sig === undefined || rest.length === 0) return undefined;
  try {
    return { expiry, sig, key: decodeURIComponent(rest.join('/')) };
  } catch {
    return undefined;
  }
}

/**
 * A stored link of ours (a brush layer's, kept in the task with a long life) signed afresh for
 * `ttlSeconds` from now, on the address the stored link names; any other value comes back as it
 * is. Answers, exports and webhook payloads hand out these short-lived copies only, so a link a
 * client saw stops working soon after, whatever the stored one's life.
 */
export function freshFileUrl(ctx: AppContext, value: string | null, ttlSeconds: number): string | null {
  if (!value) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  const at = url.pathname.indexOf(`${FILES_ROUTE}/`);
  if (at < 0) return value;
  const link = linkIn(url.pathname.slice(at + FILES_ROUTE.length + 1));
  if (!link || !signedByUs(ctx, link)) return value;
  return signedFileUrl(ctx, 'GET', link.key, ttlSeconds, url.origin + url.pathname.slice(0, at));
}

const stores = new WeakMap<AppContext, LocalFileStore>();

/** The context's file store: a folder `files` in the data folder. */
export function fileStoreOf(ctx: AppContext): LocalFileStore {
  let store = stores.get(ctx);
  if (!store) {
    store = new LocalFileStore(path.join(ctx.config.dataDir, 'files'));
    stores.set(ctx, store);
  }
  return store;
}
