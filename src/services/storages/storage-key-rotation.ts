import type { Executor } from '../../store/db.js';
import * as repo from '../../store/repositories/storage.repository.js';
import { STORAGE_SECRETS_PURPOSE, secretsAad } from './storage.service.js';
import { countOne, resealAll, resealValue, type ResealCount } from '../../adapters/crypto/reseal.js';

/**
 * Re-seals every storage's secrets from the old server key to the new one. Safe to run again
 * after an interruption: values already under the new key are skipped. A value that opens with
 * neither key stops the run (nothing after it changes) and is named by storage id.
 */
export function rotateStorageSecrets(db: Executor, oldKey: Buffer, newKey: Buffer): Promise<ResealCount> {
  return resealAll({
    purpose: STORAGE_SECRETS_PURPOSE,
    oldKey,
    newKey,
    page: (after) => repo.storagesWithSecrets(db, after, 500),
    idOf: (row) => row.id,
    name: (id) => `storage ${id}`,
    reseal: async ({ id, secrets }, from, to) => {
      const next = resealValue(secrets, secretsAad(id), from, to);
      if (next !== undefined) await repo.updateSecrets(db, id, next);
      return countOne(next);
    },
  });
}
