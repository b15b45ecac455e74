import { SecretBox } from '../../adapters/crypto/secret-box.js';
import type { Executor } from '../../store/db.js';
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
