import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/*
 * Signatures of the server's expiring links (file-store paths, local export downloads). Each
 * kind of link signs under its own key, derived (HKDF-SHA256) from the server key for that one
 * purpose, so the server key is never used directly and a signature of one kind never opens a
 * link of another. A signature is base64url HMAC-SHA256 (43 characters), checked in constant
 * time. The caller decides what the signed message holds (method, expiry, name) and puts the
 * expiry in it, so an edited expiry reads as tampering.
 */

/** The purposes links are signed for; each names one derived key. */
export type LinkPurpose = 'annotary:file-links' | 'annotary:export-links' | 'annotary:mask-links';

const SIGNATURE_RE = /^[A-Za-z0-9_-]{43}$/;
const EXPIRY_RE = /^\d{1,12}$/;

const derived = new WeakMap<Buffer, Map<LinkPurpose, Buffer>>();

function purposeKey(serverKey: Buffer, purpose: LinkPurpose): Buffer {
  let byPurpose = derived.get(serverKey);
  if (!byPurpose) {
    byPurpose = new Map();
    derived.set(serverKey, byPurpose);
  }
  let key = byPurpose.get(purpose);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), purpose, 32));
    byPurpose.set(purpose, key);
  }
  return key;
}

function mac(serverKey: Buffer, purpose: LinkPurpose, message: string): Buffer {
  return createHmac('sha256', purposeKey(serverKey, purpose)).update(message).digest();
}

/** The signature of `message` for links of `purpose`, in base64url. */
export function signLink(serverKey: Buffer, purpose: LinkPurpose, message: string): string {
  return mac(serverKey, purpose, message).toString('base64url');
}

/** Whether `signature` (as a link carries it) signs `message`; compared in constant time. */
export function linkSignatureMatches(
  serverKey: Buffer,
  purpose: LinkPurpose,
  message: string,
  signature: string,
): boolean {
  if (!SIGNATURE_RE.test(signature)) return false;
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(serverKey, purpose, message);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The Unix-seconds expiry `ttlSeconds` from `nowMs`. */
export function expiryAfter(nowMs: number, ttlSeconds: number): number {
  return Math.floor(nowMs / 1000) + ttlSeconds;
}

/** A link's expiry as written in it (Unix seconds, at most 12 digits), or undefined. */
export function parseLinkExpiry(text: string): number | undefined {
  return EXPIRY_RE.test(text) ? Number(text) : undefined;
}

/** Whether a link expiring at `expiry` (Unix seconds) is past at `nowMs`. */
export function linkExpired(expiry: number, nowMs: number): boolean {
  return expiry * 1000 <= nowMs;
}
