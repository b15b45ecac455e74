import type { AppContext } from './context.js';
import { sealPlainWebhookCredentials } from './services/webhooks/webhook-credentials-store.js';

/**
 * Upgrade steps for data an earlier version stored, run by every process that opens the store
 * (the server, the worker, the administration commands) once it has migrated. Each step finds
 * nothing to do the second time.
 */
export async function upgradeStoredData(ctx: AppContext): Promise<void> {
  // Credentials stored in plain text by earlier versions are sealed now.
  const sealedNow = await sealPlainWebhookCredentials(ctx.store.db, ctx.secretKey);
  if (sealedNow > 0) ctx.log.info({ projects: sealedNow }, 'sealed webhook credentials stored in plain text');
}
