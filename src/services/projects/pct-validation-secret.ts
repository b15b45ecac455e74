import { SecretBox } from '../../adapters/crypto/secret-box.js';
import type { PctConfig } from '../../schemas/project.js';
import type { Executor } from '../../store/db.js';
import { projectPctConfigsContaining, updateProject } from '../../store/repositories/project.repository.js';
import { countOne, resealAll, resealValue, type ResealCount } from '../../adapters/crypto/reseal.js';

/**
 * The external validator's `secret` (`pctConfig.externalValidation.secret`) is write-only, as a
 * Webhook stage's is: stored sealed with the server key (`sealedSecret`, bound to the project so
 * a sealed value copied elsewhere does not open), answered as `hasSecret: true`, and opened only
 * for the Secret header of a validation call. A pctConfig write that leaves `secret` out keeps
 * the stored one; `secret: ""` removes it.
 */

export const PCT_VALIDATION_PURPOSE = 'pct-validation-secret';
const aad = (projectId: string) => `pct-validation:${projectId}`;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

const boxes = new WeakMap<Buffer, SecretBox>();
function box(key: Buffer): SecretBox {
  let b = boxes.get(key);
  if (!b) boxes.set(key, (b = new SecretBox(key, PCT_VALIDATION_PURPOSE)));
  return b;
}

/** The stored `sealedSecret` of a pctConfig text, if any. */
function storedSeal(stored: string | null | undefined): string | undefined {
  if (!stored) return undefined;
  try {
    const v = JSON.parse(stored) as Rec;
    const ext = isRec(v['externalValidation']) ? v['externalValidation'] : {};
    return typeof ext['sealedSecret'] === 'string' ? ext['sealedSecret'] : undefined;
  } catch {
    return undefined;
  }
}

/** A checked pctConfig as the store keeps it: the plain secret sealed, an omitted one kept. */
export function sealPctSecret(config: PctConfig, stored: string | null | undefined, key: Buffer, projectId: string) {
  const ext: Rec = isRec(config.externalValidation) ? { ...config.externalValidation } : {};
  const plain = ext['secret'];
  delete ext['secret'];
  delete ext['sealedSecret'];
  delete ext['hasSecret'];
  if (typeof plain === 'string' && plain.trim() !== '') ext['sealedSecret'] = box(key).seal(plain, aad(projectId));
  else if (plain === undefined) {
    const kept = storedSeal(stored);
    if (kept) ext['sealedSecret'] = kept;
  }
  return { ...config, externalValidation: ext } as PctConfig;
}

/** The pctConfig as answers show it: no secret, plain or sealed; `hasSecret` instead. */
export function publicPctConfig(config: Rec): Rec {
  if (!isRec(config['externalValidation'])) return config;
  const ext: Rec = { ...config['externalValidation'] };
  const has = typeof ext['sealedSecret'] === 'string';
  delete ext['sealedSecret'];
  delete ext['secret'];
  delete ext['hasSecret'];
  if (has) ext['hasSecret'] = true;
  return { ...config, externalValidation: ext };
}

/** The secret in clear for a call, undefined when none is set. Throws SecretBoxError. */
export function openPctSecret(key: Buffer, projectId: string, sealed: unknown): string | undefined {
  return typeof sealed === 'string' ? box(key).open(sealed, aad(projectId)) : undefined;
}

/**
 * Re-seals every project's external validation secret from the old server key to the new one
 * (see src/secret-key-rotation.ts). Values already under the new key are skipped, so a run can
 * be repeated; a value that opens with neither key stops the run, named by project id.
 */
export function rotatePctValidationSecrets(db: Executor, oldKey: Buffer, newKey: Buffer): Promise<ResealCount> {
  return resealAll({
    purpose: PCT_VALIDATION_PURPOSE,
    oldKey,
    newKey,
    page: (after) => projectPctConfigsContaining(db, '"sealedSecret"', after, 500),
    idOf: (row) => row.id,
    name: (id) => `project ${id}`,
    reseal: async ({ id, pct_config }, from, to) => {
      const sealed = storedSeal(pct_config);
      if (sealed === undefined) return { rotated: 0, alreadyRotated: 0 };
      const next = resealValue(sealed, aad(id), from, to);
      if (next !== undefined) {
        const config = JSON.parse(pct_config) as Rec;
        const ext = { ...(config['externalValidation'] as Rec), sealedSecret: next };
        await updateProject(db, id, { pct_config: JSON.stringify({ ...config, externalValidation: ext }) });
      }
      return countOne(next);
    },
  });
}
