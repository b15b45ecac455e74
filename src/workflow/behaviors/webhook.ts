import { queuesJobOnEntry, type StageEntryJob } from '../stage-behavior.js';

/** Job kind of a webhook delivery (declared in jobs/registry.ts, handled by webhook-delivery). */
export const WEBHOOK_DELIVERY_JOB = 'webhook.deliver';

/**
 * What a queued delivery remembers. The job id is the delivery id (X-Annotary-Delivery), so it
 * stays the same across the attempts of one delivery.
 */
export type WebhookDeliveryJob = StageEntryJob;

/**
 * A task entering a Webhook stage waits there while one delivery is queued with the move. The
 * delivery moves it on to next[0] once the receiver answers 200.
 */
export const webhookBehavior = queuesJobOnEntry(WEBHOOK_DELIVERY_JOB);
