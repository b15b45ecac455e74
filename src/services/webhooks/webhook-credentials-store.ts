import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import * as repo from '../../store/repositories/project.repository.js';
import { parseJson } from '../../stored-json.js';
import {
  hasPlainCredentials,
  resealCredentials,
  sealCredentials,
  WEBHOOK_CREDENTIALS_PURPOSE,
} from '../projects/webhook-credentials.js';
import { resealAll, type ResealCount } from '../../adapters/crypto/reseal.js';

const BATCH = 200;

/**
 * Upgrade of stores written before webhook credentials were sealed: every stages document that
 * still holds a plain `secret` or `token` gets them sealed under the server key. Runs at every
 * start (after the schema migrations) and finds nothing once done; a replica starting at the
 * same moment may seal the same project: the write is conditional on the text it read, so the
 * loser simply leaves it. Returns the number of projects sealed.
 */
export async function sealPlainWebhookCredentials(db: Executor, key: Buffer): Promise<number> {
  let sealed = 0;
  for (const fragment of ['"secret"', '"token"']) {
    let after = '';
    for (;;) {
      const batch = await repo.projectStagesContaining(db, fragment, after, BATCH);
      if (batch.length === 0) break;
      for (const { id, stages } of batch) {
        after = id;
        const parsed = parseJson<Stage[]>(stages, []);
        if (!Array.isArray(parsed) || !hasPlainCredentials(parsed)) continue;
        const next = JSON.stringify(sealCredentials(parsed, key, id));
        if (await repo.replaceStages(db, id, stages, next)) sealed++;
      }
    }
  }
  return sealed;
}

/**
 * Re-seals every webhook credential from the old server key to the new one (see
 * src/secret-key-rotation.ts). Values already under the new key are skipped, so a run can be repeated;
 * a value that opens with neither key stops the run, named by project.
 */
export function rotateWebhookCredentials(db: Executor, oldKey: Buffer, newKey: Buffer): Promise<ResealCount> {
  return resealAll({
    purpose: WEBHOOK_CREDENTIALS_PURPOSE,
    oldKey,
    newKey,
    page: (after) => repo.projectStagesContaining(db, '"sealed', after, BATCH),
    idOf: (row) => row.id,
    name: (id) => `project ${id} (webhook credentials)`,
    reseal: async ({ id, stages }, from, to) => {
      const result = resealCredentials(parseJson<Stage[]>(stages, []), id, from, to);
      if (result.rotated > 0) await repo.replaceStages(db, id, stages, JSON.stringify(result.stages));
      return { rotated: result.rotated, alreadyRotated: result.already };
    },
  });
}
