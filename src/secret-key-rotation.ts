import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Executor, Store } from './store/db.js';
import { openStore } from './store/db.js';
import { rotatePctValidationSecrets } from './services/projects/pct-validation-secret.js';
import { rotatePluginSecrets } from './services/plugins/plugin-key-rotation.js';
import { rotateStorageSecrets } from './services/storages/storage-key-rotation.js';
import { rotateWebhookCredentials } from './services/webhooks/webhook-credentials-store.js';

/*
 * Re-sealing everything kept under the server key with a new one: storages' secrets, plugins'
 * secrets, webhook credentials and point-cloud projects' external validation secrets, each re-sealed by its own domain. A process-level step (run by
 * an operator as a script), so it sits beside server.ts rather than inside one of the domains.
 */

export interface RotationResult {
  storages: { rotated: number; alreadyRotated: number };
  plugins: { rotated: number; alreadyRotated: number };
  webhooks: { rotated: number; alreadyRotated: number };
  pctValidation: { rotated: number; alreadyRotated: number };
}

/**
 * Every value sealed with the server key: storage secrets, plugin secrets, webhook stage
 * credentials and external validation secrets. Run it in one transaction so a failure leaves everything under the old key.
 */
export async function rotateAllSecrets(db: Executor, oldKey: Buffer, newKey: Buffer): Promise<RotationResult> {
  return {
    storages: await rotateStorageSecrets(db, oldKey, newKey),
    plugins: await rotatePluginSecrets(db, oldKey, newKey),
    webhooks: await rotateWebhookCredentials(db, oldKey, newKey),
    pctValidation: await rotatePctValidationSecrets(db, oldKey, newKey),
  };
}

/** One line per kind of secret, for the command's output. */
export function describeRotation(r: RotationResult): string {
  const line = (what: string, x: { rotated: number; alreadyRotated: number }) =>
    `re-sealed ${x.rotated} ${what} (${x.alreadyRotated} were already under the new key)\n`;
  return (
    line('storage secrets', r.storages) +
    line('plugin secrets', r.plugins) +
    line('webhook credentials', r.webhooks) +
    line('external validation secrets', r.pctValidation)
  );
}

export function keyFrom(name: string, raw: string | undefined): Buffer {
  const v = raw?.trim() ?? '';
  const key = /^[0-9a-fA-F]{64}$/.test(v) ? Buffer.from(v, 'hex') : Buffer.from(v, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be a 32-byte key (64 hex characters or base64)`);
  return key;
}

/**
 * `ANNOTARY_OLD_SECRET_KEY=... ANNOTARY_SECRET_KEY=... [DATABASE_URL=...|ANNOTARY_DATA_DIR=...]
 *  npx tsx src/secret-key-rotation.ts` (or `node dist/secret-key-rotation.js`).
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
    const result = await store.db.transaction().execute((trx) => rotateAllSecrets(trx, oldKey, newKey));
    process.stdout.write(describeRotation(result));
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
