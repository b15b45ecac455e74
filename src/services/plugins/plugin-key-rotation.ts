import type { Executor } from '../../store/db.js';
import * as repo from '../../store/repositories/plugin.repository.js';
import { PLUGIN_SECRETS_PURPOSE, pluginSecretAad } from './plugin.service.js';
import { countOne, resealAll, resealValue, type ResealCount } from '../../adapters/crypto/reseal.js';

/**
 * Re-seals every plugin secret from the old server key to the new one (see
 * src/secret-key-rotation.ts). Values already under the new key are skipped, so a run can be repeated;
 * a value that opens with neither key stops the run, named by plugin id.
 */
export function rotatePluginSecrets(db: Executor, oldKey: Buffer, newKey: Buffer): Promise<ResealCount> {
  return resealAll({
    purpose: PLUGIN_SECRETS_PURPOSE,
    oldKey,
    newKey,
    page: (after) => repo.pluginsWithSecrets(db, after, 500),
    idOf: (row) => row.id,
    name: (id) => `plugin ${id}`,
    reseal: async ({ id, secret }, from, to) => {
      const next = resealValue(secret, pluginSecretAad(id), from, to);
      if (next !== undefined) await repo.updatePluginSecret(db, id, next);
      return countOne(next);
    },
  });
}
