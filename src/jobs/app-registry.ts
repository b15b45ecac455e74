import { createUndiciSender } from '../adapters/webhook/undici-sender.js';
import type { AppContext } from '../context.js';
import { pluginCallHandler } from '../services/plugin-call.js';
import { webhookDeliveryHandler } from '../services/webhook-delivery.js';
import { PLUGIN_CALL_JOB } from '../workflow/behaviors/plugin.js';
import { WEBHOOK_DELIVERY_JOB } from '../workflow/behaviors/webhook.js';
import { JOB_KINDS, JobRegistry, type JobPayloads } from './registry.js';

/**
 * How the application's job worker runs (src/server.ts). Webhook deliveries and plugin calls
 * mostly wait on the network, so many run at once, and deliveries running together share their
 * reads and writes (services/micro-batcher.ts): 64 was the knee of bench/webhook-throughput.ts.
 * An idle worker polls four times a second (one UPDATE each), so a task entering a Webhook stage
 * is sent within a quarter of a second, whichever process queued it.
 */
export const WORKER_CONCURRENCY = 64;
export const WORKER_POLL_MS = 250;

/**
 * The application's registry: one handler per declared kind. A worker built on it refuses to
 * start while a declared kind lacks its handler.
 */
export function buildJobRegistry(ctx: AppContext): JobRegistry<JobPayloads> {
  const registry = new JobRegistry(JOB_KINDS, { backoffBaseMs: ctx.config.jobRetryBaseMs });
  const sender = createUndiciSender({ allowPrivate: ctx.config.webhookAllowPrivate });
  registry.handle(WEBHOOK_DELIVERY_JOB, webhookDeliveryHandler(ctx, sender));
  // Plugin URLs obey the same private-address rule as webhooks, so they share the sender.
  registry.handle(PLUGIN_CALL_JOB, pluginCallHandler(ctx, sender));
  return registry;
}
