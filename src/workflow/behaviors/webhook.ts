import { WEBHOOK_DELIVERY_JOB } from '../../jobs/kinds.js';
import { leaveBy, queuesJobOnEntry, refuseExit } from '../stage-behavior.js';

/**
 * A task entering a Webhook stage waits there while one delivery is queued with the move. The
 * delivery moves it on to next[0] once the receiver answers 200; nobody else sends it on.
 */
export const webhookBehavior = queuesJobOnEntry(WEBHOOK_DELIVERY_JOB, (stage, request) => {
  if (request.kind === 'delivered') return leaveBy(stage, 0, { trigger: 'webhook' });
  return refuseExit(stage, request);
});
