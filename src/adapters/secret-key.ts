import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const SECRET_KEY_FILE = 'secret.key';

/**
 * The 32-byte server key (encrypts storage secrets, signs file and export URLs): from
 * ANNOTARY_SECRET_KEY, or else a key file made once in the data folder, readable by its owner only.
 */
export function resolveSecretKey(configured: Buffer | undefined, dataDir: string): { key: Buffer; generated: boolean } {
  if (configured) return { key: configured, generated: false };
  const file = path.join(dataDir, SECRET_KEY_FILE);
  try {
    const hex = fs.readFileSync(file, 'utf8').trim();
    const key = Buffer.from(hex, 'hex');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte hex key`);
    return { key, generated: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    // 'wx' fails if another process wrote the file first; then that key wins.
    fs.writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    return { key, generated: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return resolveSecretKey(undefined, dataDir);
    throw err;
  }
}
