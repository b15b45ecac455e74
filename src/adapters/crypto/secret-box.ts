import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/*
 * Authenticated encryption of small secrets at rest (storage keys, service-account JSON).
 *
 * AES-256-GCM under a key derived (HKDF-SHA256) from the 32-byte server key for one purpose, so
 * the same server key can sign URLs elsewhere without ever being used twice for two jobs.
 * Each value gets a fresh 12-byte IV; the 16-byte tag is checked on open. The caller binds a
 * value to where it lives with `aad` (e.g. the storage id), so a sealed value copied into
 * another row does not open.
 *
 * Sealed form: `v1.<keyId>.<iv>.<ciphertext>.<tag>` (base64url parts). keyId is 8 hex
 * characters of a hash of the derived key: it names which key sealed a value (to say "sealed
 * under another key" instead of "tampered") and reveals nothing usable about the key.
 */

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value that does not open: another key sealed it, or it was altered. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

export class SecretBox {
  private readonly key: Buffer;
  /** Names the derived key in sealed values; safe to log. */
  readonly keyId: string;

  constructor(serverKey: Buffer, purpose: string) {
    if (serverKey.length !== 32) throw new Error('the server key must be 32 bytes');
    this.key = Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), `annotary:${purpose}`, 32));
    this.keyId = createHash('sha256').update('key-id:').update(this.key).digest('hex').slice(0, 8);
  }

  seal(plaintext: string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [
      FORMAT,
      this.keyId,
      iv.toString('base64url'),
      ciphertext.toString('base64url'),
      tag.toString('base64url'),
    ].join('.');
  }

  open(sealed: string, aad: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== FORMAT) throw new SecretBoxError('not a sealed value of a known format');
    const [, keyId, ivPart, ctPart, tagPart] = parts as [string, string, string, string, string];
    if (keyId !== this.keyId) {
      throw new SecretBoxError(`sealed under another server key (key id ${keyId}, current ${this.keyId})`);
    }
    const iv = Buffer.from(ivPart, 'base64url');
    const tag = Buffer.from(tagPart, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('sealed value is malformed');
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(Buffer.from(ctPart, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed value failed authentication (altered, or moved from another record)');
    }
  }

  /** True when this box's key sealed the value (it may still fail to open if altered). */
  sealedByMe(sealed: string): boolean {
    return sealed.split('.')[1] === this.keyId;
  }
}
