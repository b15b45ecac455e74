import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SecretBox } from '../../adapters/crypto/secret-box.js';
import type { Executor, Store } from '../../store/db.js';
import { openStore } from '../../store/db.js';
import * as repo from '../../store/repositories/storage.repository.js';
import { STORAGE_SECRETS_PURPOSE, secretsAad } from './storage.service.js';

/**
 * Re-seals every storage's secrets from the old server key to the new one. Safe to run again
 * after an interruption: values already under the new key are skipped. A value that opens with
 * neither key stops the run (nothing after it changes) and is named by storage id.
 */
export async function rotateStorageSecrets(
  db: Executor,
  oldKey: Buffer,
  newKey: Buffer,
): Promise<{ rotated: number; alreadyRotated: number }> {
  const from = new SecretBox(oldKey, STORAGE_SECRETS_PURPOSE);
  const to = new SecretBox(newKey, STORAGE_SECRETS_PURPOSE);
  let rotated = 0;
  let alreadyRotated = 0;
  let after = '';
  for (;;) {
    const batch = await repo.storagesWithSecrets(db, after, 500);
    if (batch.length === 0) break;
    for (const { id, secrets } of batch) {
      after = id;
      if (to.sealedByMe(secrets)) {
        to.open(secrets, secretsAad(id)); // proves it really opens
        alreadyRotated++;
        continue;
      }
      let plain: string;
      try {
        plain = from.open(secrets, secretsAad(id));
      } catch (err) {
        throw new Error(`storage ${id}: ${(err as Error).message}`);
      }
      await repo.updateSecrets(db, id, to.seal(plain, secretsAad(id)));
      rotated++;
    }
  }
  return { rotated, alreadyRotated };
}

function keyFrom(name: string, raw: string | undefined): Buffer {
  const v = raw?.trim() ?? '';
  const key = /^[0-9a-fA-F]{64}$/.test(v) ? Buffer.from(v, 'hex') : Buffer.from(v, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be a 32-byte key (64 hex characters or base64)`);
  return key;
}

/**
 * `ANNOTARY_OLD_SECRET_KEY=... ANNOTARY_SECRET_KEY=... [DATABASE_URL=...|ANNOTARY_DATA_DIR=...]
 *  npx tsx src/services/storages/storage-key-rotation.ts` (or `node dist/services/storages/storage-key-rotation.js`).
 */
async function main(): Promise<void> {
  const env = process.env;
  const oldKey = keyFrom('ANNOTARY_OLD_SECRET_KEY', env.ANNOTARY_OLD_SECRET_KEY);
  const newKey = keyFrom('ANNOTARY_SECRET_KEY', env.ANNOTARY_SECRET_KEY);
  const dataDir = path.resolve(env.ANNOTARY_DATA_DIR?.trim() || './data');
  const store: Store = await openStore({
    databaseUrl: env.DATABASE_URL || undefined,
    sqliteFile: path.join(dataDir, 'annotary.db'),
  });
  try {
    const result = await store.db.transaction().execute((trx) => rotateStorageSecrets(trx, oldKey, newKey));
    process.stdout.write(
      `re-sealed ${result.rotated} storages (${result.alreadyRotated} were already under the new key)\n`,
    );
  } finally {
    await store.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`key rotation failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
