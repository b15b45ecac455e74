import { WEBHOOK_DELIVERY_JOB } from '../../jobs/kinds.js';
import { queuesJobOnEntry } from '../stage-behavior.js';

/**
 * A task entering a Webhook stage waits there while one delivery is queued with the move. The
 * delivery moves it on to next[0] once the receiver answers 200; nobody else sends it on.
 */
export const webhookBehavior = queuesJobOnEntry(WEBHOOK_DELIVERY_JOB);
