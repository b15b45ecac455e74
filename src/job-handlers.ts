import { createUndiciSender } from './adapters/webhook/undici-sender.js';
import type { AppContext } from './context.js';
import { assetHeadersHandler } from './services/assets/asset-headers.service.js';
import { pluginCallHandler } from './services/plugins/plugin-call.js';
import { storageImportHandler } from './services/assets/storage-import.js';
import { webhookDeliveryHandler } from './services/webhooks/webhook-delivery.js';
import { ASSET_HEADERS_JOB, PLUGIN_CALL_JOB, STORAGE_IMPORT_JOB, WEBHOOK_DELIVERY_JOB } from './jobs/kinds.js';
import { JOB_KINDS, JobRegistry, type JobPayloads } from './jobs/registry.js';

/*
 * The application's job registry: each job kind with the service that handles it. It sits
 * beside server.ts, where the process is assembled, because it is the one module that knows
 * both the jobs machinery and the services: jobs/ never imports a service (services queue jobs,
 * so that would run in a circle), and each service exports its handler for this file to wire.
 */

/**
 * How the application's job worker runs (src/server.ts). Webhook deliveries and plugin calls
 * mostly wait on the network, so many run at once, and deliveries running together share their
 * reads and writes (jobs/micro-batcher.ts). A job queued by this process is claimed at once
 * (queue.ts onJobsQueued); one queued by another process within a quarter of a second, as an
 * idle worker polls four times a second (one UPDATE each).
 */
export const WORKER_CONCURRENCY = 64;
export const WORKER_POLL_MS = 250;
/**
 * Kept-alive connections per receiver origin, as many as the jobs a worker runs: a delivery
 * never waits for a connection, so its timeout counts only its own request. More jobs at once
 * helped PostgreSQL, whose batches wait on round trips, but would open as many connections
 * to a receiver (see docs/benchmarks.md, webhook-throughput).
 */
export const WEBHOOK_CONNECTIONS_PER_ORIGIN = WORKER_CONCURRENCY;

/**
 * The application's registry: one handler per declared kind. A worker built on it refuses to
 * start while a declared kind lacks its handler.
 */
export function buildJobRegistry(ctx: AppContext): JobRegistry<JobPayloads> {
  const registry = new JobRegistry(JOB_KINDS, { backoffBaseMs: ctx.config.jobRetryBaseMs });
  const sender = createUndiciSender({
    allowPrivate: ctx.config.webhookAllowPrivate,
    connectionsPerOrigin: WEBHOOK_CONNECTIONS_PER_ORIGIN,
  });
  registry.handle(WEBHOOK_DELIVERY_JOB, webhookDeliveryHandler(ctx, sender));
  // Plugin URLs obey the same private-address rule as webhooks, so they share the sender.
  registry.handle(PLUGIN_CALL_JOB, pluginCallHandler(ctx, sender));
  registry.handle(STORAGE_IMPORT_JOB, storageImportHandler(ctx));
  registry.handle(ASSET_HEADERS_JOB, assetHeadersHandler(ctx));
  return registry;
}
