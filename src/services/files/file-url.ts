import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import { LocalFileStore } from '../../adapters/file-store/local.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';

/*
 * Expiring signed paths of the server's file store: `${publicUrl}/files/<expiry>/<sig>/<key>`.
 * The signature travels in the path because the Python client PUTs to the upload URL with no
 * query string and no header [client]. sig = base64url HMAC-SHA256 over method, expiry (Unix
 * seconds) and key, under a key derived from the server key for this one purpose, so the server
 * key is never used directly for two jobs. A GET link also serves HEAD; a PUT link only PUT.
 */

export const FILES_ROUTE = '/files';
export type LinkMethod = 'GET' | 'PUT';

export interface FileLink {
  expiry: string;
  sig: string;
  key: string;
}

const derived = new WeakMap<Buffer, Buffer>();
function linkKey(serverKey: Buffer): Buffer {
  let key = derived.get(serverKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), 'annotary:file-links', 32));
    derived.set(serverKey, key);
  }
  return key;
}

function mac(ctx: AppContext, method: LinkMethod, key: string, expiry: number): Buffer {
  return createHmac('sha256', linkKey(ctx.secretKey)).update(`${method}\n${expiry}\n${key}`).digest();
}

/** `/files/<expiry>/<sig>/<key>`, valid for `ttlSeconds` from now (the context's clock). */
export function signedFilePath(ctx: AppContext, method: LinkMethod, key: string, ttlSeconds: number): string {
  const expiry = Math.floor(ctx.clock.now() / 1000) + ttlSeconds;
  return `${FILES_ROUTE}/${expiry}/${mac(ctx, method, key, expiry).toString('base64url')}/${key}`;
}

export function signedFileUrl(ctx: AppContext, method: LinkMethod, key: string, ttlSeconds: number): string {
  return ctx.config.publicUrl + signedFilePath(ctx, method, key, ttlSeconds);
}

/**
 * Checks a link in constant time; 403 when tampered with or expired. Returns the expiry in
 * Unix seconds. The signature is checked first, so an edited expiry reads as tampering.
 */
export function verifyFileLink(ctx: AppContext, method: LinkMethod, link: FileLink): number {
  const expiry = /^\d{1,12}$/.test(link.expiry) ? Number(link.expiry) : -1;
  const given = /^[A-Za-z0-9_-]{43}$/.test(link.sig) ? Buffer.from(link.sig, 'base64url') : undefined;
  const valid = expiry >= 0 && given?.length === 32 && timingSafeEqual(given, mac(ctx, method, link.key, expiry));
  if (!valid) throw new AppError('FORBIDDEN', 'the signature of this file link is not valid');
  if (expiry * 1000 <= ctx.clock.now())
    throw new AppError('FORBIDDEN', 'this file link has expired; ask for a new one');
  return expiry;
}

/**
 * The link inside a URL of this server's file store (any expiry, any method; the query and
 * fragment are ignored), or undefined for any other URL.
 */
export function parseFileUrl(ctx: AppContext, value: string): FileLink | undefined {
  let url: URL;
  let base: URL;
  try {
    url = new URL(value);
    base = new URL(ctx.config.publicUrl);
  } catch {
    return undefined;
  }
  const prefix = `${base.pathname.replace(/\/+$/, '')}${FILES_ROUTE}/`;
  if (url.origin !== base.origin || !url.pathname.startsWith(prefix)) return undefined;
  const [expiry, sig, ...rest] = url.pathname.slice(prefix.length).split('/');
  if (expiry === undefined || sig === undefined || rest.length === 0) return undefined;
  let key: string;
  try {
    key = decodeURIComponent(rest.join('/'));
  } catch {
    return undefined;
  }
  return { expiry, sig, key };
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
