import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing with Node's scrypt (no native dependency). The encoded form keeps the
 * parameters and the per-user salt with the hash, so the cost can be raised later without
 * breaking stored passwords: `scrypt$ln=15,r=8,p=3$<salt base64url>$<hash base64url>`.
 * N=2^15, r=8, p=3 is one of OWASP's equivalent minimums for scrypt (32 MiB per hash).
 */
export interface ScryptParams {
  /** log2 of the CPU/memory cost N. */
  ln: number;
  r: number;
  p: number;
}

export const CURRENT_PARAMS: ScryptParams = { ln: 15, r: 8, p: 3 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(password: string, salt: Buffer, params: ScryptParams, keylen: number): Promise<Buffer> {
  const N = 2 ** params.ln;
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string, params: ScryptParams = CURRENT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, params, KEY_LENGTH);
  return `scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

interface Decoded {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

function decode(encoded: string): Decoded | undefined {
  const m = /^scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([\w-]+)\$([\w-]+)$/.exec(encoded);
  if (!m) return undefined;
  const [, ln, r, p, salt, key] = m as unknown as [string, string, string, string, string, string];
  const params = { ln: Number(ln), r: Number(r), p: Number(p) };
  // Bounds keep a tampered row from asking for gigabytes.
  if (params.ln < 10 || params.ln > 20 || params.r < 1 || params.r > 32 || params.p < 1 || params.p > 16) {
    return undefined;
  }
  return { params, salt: Buffer.from(salt, 'base64url'), key: Buffer.from(key, 'base64url') };
}

/** True when the password matches the stored hash; a malformed hash never matches. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const stored = decode(encoded);
  if (!stored || stored.key.length === 0) return false;
  const key = await derive(password, stored.salt, stored.params, stored.key.length);
  return timingSafeEqual(key, stored.key);
}

/** A stored hash made with weaker parameters than today's: rehash it at the next sign-in. */
export function needsRehash(encoded: string): boolean {
  const stored = decode(encoded);
  if (!stored) return true;
  const { ln, r, p } = stored.params;
  return ln < CURRENT_PARAMS.ln || r < CURRENT_PARAMS.r || p < CURRENT_PARAMS.p;
}

let dummy: Promise<string> | undefined;

/**
 * Spends the time of one verification when there is no user (or no password) to check, so a
 * wrong e-mail answers as slowly as a wrong password.
 */
export async function verifyNothing(password: string): Promise<false> {
  dummy ??= hashPassword('annotary-dummy-password');
  await verifyPassword(password, await dummy);
  return false;
}
