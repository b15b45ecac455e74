import { type StageBehavior, WAIT } from '../stage-behavior.js';

/** Job kind of a webhook delivery (declared in jobs/registry.ts, handled by webhook-delivery). */
export const WEBHOOK_DELIVERY_JOB = 'webhook.deliver';

/**
 * What a queued delivery remembers. The job id is the delivery id (X-Annotary-Delivery), so it
 * stays the same across the attempts of one delivery. `enteredAt` is the task's
 * stage_entered_at when it entered: a task that left the stage, or left and came back (which
 * queued a delivery of its own), no longer matches, and this delivery is dropped.
 * No URL or secret here: the handler reads the stage's current settings when it sends.
 */
export interface WebhookDeliveryJob {
  projectId: string;
  taskId: string;
  stageId: string;
  enteredAt: string;
}

/**
 * A task entering a Webhook stage waits there while one delivery is queued, in the same
 * transaction as the move (the job goes into the routing run's effects). The delivery moves it
 * on to next[0] once the receiver answers 200.
 */
export const webhookBehavior: StageBehavior = {
  async enter(task, stage, env) {
    const payload: WebhookDeliveryJob = {
      projectId: task.row.project_id,
      taskId: task.row.id,
      stageId: stage.id,
      enteredAt: task.row.stage_entered_at,
    };
    env.effects.jobs.push({ id: env.newId(), kind: WEBHOOK_DELIVERY_JOB, payload });
    return WAIT;
  },
};
