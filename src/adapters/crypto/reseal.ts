import { SecretBox } from './secret-box.js';

/** What a re-seal did: values moved to the new key, and values found under it already. */
export interface ResealCount {
  rotated: number;
  alreadyRotated: number;
}

export interface ResealPass<R> {
  /** The SecretBox purpose the values were sealed for. */
  purpose: string;
  oldKey: Buffer;
  newKey: Buffer;
  /** The next rows after the id `after`, in id order; none when done. */
  page: (after: string) => Promise<R[]>;
  idOf: (row: R) => string;
  /** Names a row in the error that stops the run ("plugin 6b04..."). */
  name: (id: string) => string;
  /** Re-seals one row's values and writes what changed. */
  reseal: (row: R, from: SecretBox, to: SecretBox) => Promise<ResealCount>;
}

/**
 * Re-seals every row's values from the old server key to the new one, page by page in id order.
 * Values already under the new key are counted and left (after proving they open), so a run can
 * be repeated after an interruption; a value that opens with neither key stops the run with the
 * row named, and the caller's transaction leaves everything as it was.
 */
export async function resealAll<R>(pass: ResealPass<R>): Promise<ResealCount> {
  const from = new SecretBox(pass.oldKey, pass.purpose);
  const to = new SecretBox(pass.newKey, pass.purpose);
  const total: ResealCount = { rotated: 0, alreadyRotated: 0 };
  let after = '';
  for (;;) {
    const rows = await pass.page(after);
    if (rows.length === 0) return total;
    for (const row of rows) {
      after = pass.idOf(row);
      let counted: ResealCount;
      try {
        counted = await pass.reseal(row, from, to);
      } catch (err) {
        throw new Error(`${pass.name(after)}: ${(err as Error).message}`);
      }
      total.rotated += counted.rotated;
      total.alreadyRotated += counted.alreadyRotated;
    }
  }
}

/** One sealed value under the new key, or undefined when it already is (proved by opening it). */
export function resealValue(sealed: string, aad: string, from: SecretBox, to: SecretBox): string | undefined {
  if (to.sealedByMe(sealed)) {
    to.open(sealed, aad);
    return undefined;
  }
  return to.seal(from.open(sealed, aad), aad);
}

/** The count of one value: re-sealed (`next` given) or already under the new key. */
export const countOne = (next: string | undefined): ResealCount =>
  next === undefined ? { rotated: 0, alreadyRotated: 1 } : { rotated: 1, alreadyRotated: 0 };
