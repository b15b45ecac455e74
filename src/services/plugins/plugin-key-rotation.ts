import { SecretBox } from '../../adapters/crypto/secret-box.js';
import type { Executor } from '../../store/db.js';
import * as repo from '../../store/repositories/plugin.repository.js';
import { PLUGIN_SECRETS_PURPOSE, pluginSecretAad } from './plugin.service.js';

/**
 * Re-seals every plugin secret from the old server key to the new one (see
 * src/secret-key-rotation.ts). Values already under the new key are skipped, so a run can be repeated;
 * a value that opens with neither key stops the run, named by plugin id.
 */
export async function rotatePluginSecrets(
  db: Executor,
  oldKey: Buffer,
  newKey: Buffer,
): Promise<{ rotated: number; alreadyRotated: number }> {
  const from = new SecretBox(oldKey, PLUGIN_SECRETS_PURPOSE);
  const to = new SecretBox(newKey, PLUGIN_SECRETS_PURPOSE);
  let rotated = 0;
  let alreadyRotated = 0;
  let after = '';
  for (;;) {
    const batch = await repo.pluginsWithSecrets(db, after, 500);
    if (batch.length === 0) break;
    for (const { id, secret } of batch) {
      after = id;
      const aad = pluginSecretAad(id);
      try {
        if (to.sealedByMe(secret)) {
          to.open(secret, aad); // proves it really opens
          alreadyRotated++;
          continue;
        }
        await repo.updatePluginSecret(db, id, to.seal(from.open(secret, aad), aad));
      } catch (err) {
        throw new Error(`plugin ${id}: ${(err as Error).message}`);
      }
      rotated++;
    }
  }
  return { rotated, alreadyRotated };
}
