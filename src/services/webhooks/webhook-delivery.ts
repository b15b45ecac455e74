import { createHmac } from 'node:crypto';
import { SHARED_LINK_SECONDS, taskLinks } from '../files/layers/brush-layer.js';
import type { WebhookResult, WebhookSender } from '../../adapters/webhook/webhook-sender.js';
import type { AppContext } from '../../context.js';
import { newId } from '../../ids.js';
import { JOB_RECORDED, type Job, type JobContext, type JobHandler } from '../../jobs/registry.js';
import type { Stage, WebhookConfig } from '../../schemas/stage.js';
import type { NewWebhookLog } from '../../store/repositories/webhook.repository.js';
import type { WebhookDeliveryJob } from '../../jobs/kinds.js';
import { MicroBatcher } from '../../jobs/micro-batcher.js';
import { type AttemptRecord, attemptRecorder, parallelBatches, type Recorded } from './webhook-outcomes.js';
import { buildPayload, type DeliverySubject, type LoadedSubject, loadSubjects } from './webhook-payload.js';
import { ProjectViews } from './webhook-project-views.js';
import { openWebhookConfig } from '../projects/webhook-credentials.js';

/**
 * The job handler of a webhook delivery: one attempt per run. Retries are the job worker's own
 * (exponential backoff with jitter from the kind's base delay); the handler decides when to stop,
 * after the stage's `retryCount` + 1 attempts. Only a 200 answer succeeds: the task then moves
 * on to next[0] through the engine, with its history entry, the attempt's log line and the end
 * of the job, in one transaction. When the last attempt fails the task stays and a failure row
 * feeds the stage status warning. Every attempt, and a dropped delivery, leaves one log line.
 * Deliveries that run at the same time share their reads and their writes (jobs/micro-batcher).
 */

export const USER_AGENT = 'Annotary-Webhook/1';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRY_COUNT = 3;

/** Headers of one attempt: signature over the exact bytes sent, or the bearer token. */
export function deliveryHeaders(cfg: WebhookConfig, deliveryId: string, attempt: number, body: Buffer) {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Annotary-Delivery': deliveryId,
    'X-Annotary-Attempt': String(attempt),
  };
  if (cfg.authType === 'secret' && cfg.secret) {
    headers['X-Hub-Signature'] = createHmac('sha1', cfg.secret).update(body).digest('hex');
  } else if (cfg.authType === 'bearer_token' && cfg.token) {
    headers['Authorization'] = `Bearer ${cfg.token}`;
  }
  return headers;
}

/** What one attempt came to, as the log and the warning show it. */
interface AttemptOutcome {
  status: number | null;
  error: string | null;
}

function outcomeOf(result: WebhookResult): AttemptOutcome {
  if (result.kind === 'failed') return { status: null, error: result.error };
  return { status: result.status, error: null };
}

/** The warning's wording of a failed attempt: `HTTP 503`, `timeout after 500 ms`... */
function failureText(o: AttemptOutcome): string {
  if (o.status !== null && o.error) return `HTTP ${o.status}: ${o.error}`;
  return o.status !== null ? `HTTP ${o.status}` : (o.error ?? 'unknown error');
}

export function webhookDeliveryHandler(ctx: AppContext, sender: WebhookSender): JobHandler<WebhookDeliveryJob> {
  const db = ctx.store.db;
  const links = taskLinks(ctx, SHARED_LINK_SECONDS);
  const now = () => new Date(ctx.clock.now()).toISOString();
  // Deliveries claimed together load together, and end together in one transaction.
  const views = new ProjectViews();
  const loader = new MicroBatcher<WebhookDeliveryJob, LoadedSubject>(
    (jobs) => loadSubjects(db, jobs, views),
    undefined,
    parallelBatches(ctx.store.engine).reads,
  );
  const recorder = attemptRecorder(ctx);
  // Opened once per stage object: ProjectViews keeps one while the stored stages text (with
  // the sealed credentials) is the same, and opening them cost a decryption per delivery.
  const configs = new WeakMap<Stage, WebhookConfig>();
  const configOf = (s: DeliverySubject): WebhookConfig => {
    let cfg = configs.get(s.stage);
    if (!cfg) {
      cfg = openWebhookConfig(s.stage, ctx.secretKey, s.project.id);
      configs.set(s.stage, cfg);
    }
    return cfg;
  };

  const logRow = (job: Job<WebhookDeliveryJob>, externalId: string, o: AttemptOutcome): NewWebhookLog => ({
    id: newId(ctx.clock.now()),
    project_id: job.payload.projectId,
    stage_id: job.payload.stageId,
    task_id: job.payload.taskId,
    delivery_id: job.id,
    attempt: job.attempt,
    external_id: externalId,
    status: o.status,
    error: o.error,
    created_at: now(),
  });

  /** Writes the record that ends the job, the job's end with it. */
  async function end(record: AttemptRecord, jc: JobContext): Promise<Recorded> {
    const done = await recorder.submit({ ...record, claim: jc.claim, ...(jc.refill ? { refill: jc.refill } : {}) });
    if (done.kind === 'lost') jc.log.warn({}, 'job lease lost before it finished; outcome dropped');
    return done;
  }

  /** No attempt left: the task stays, and the stage status counts it. */
  async function failedForGood(job: Job<WebhookDeliveryJob>, s: DeliverySubject, o: AttemptOutcome, jc: JobContext) {
    const failure = {
      task_id: s.task.id,
      project_id: s.project.id,
      stage_id: s.stage.id,
      entered_at: job.payload.enteredAt,
      delivery_id: job.id,
      error: failureText(o),
      failed_at: now(),
    };
    await end({ kind: 'failed', log: logRow(job, s.asset.external_id, o), failure }, jc);
    jc.log.warn({ deliveryId: job.id, taskId: s.task.id, error: failure.error }, 'webhook delivery failed for good');
  }

  return async (job, jc) => {
    const loaded = await loader.submit(job.payload);
    if (loaded.kind === 'dropped') {
      const log = logRow(job, loaded.task?.external_id ?? '', { status: null, error: `dropped: ${loaded.reason}` });
      await end({ kind: 'log', log }, jc);
      jc.log.info(
        { deliveryId: job.id, taskId: job.payload.taskId, reason: loaded.reason },
        'webhook delivery dropped',
      );
      return JOB_RECORDED;
    }
    const s = loaded.subject;
    const cfg = configOf(s);
    // Serialised once: these bytes are signed and sent as they are.
    const body = Buffer.from(JSON.stringify(buildPayload(s, links)));
    const result = await sender.send({
      url: cfg.url,
      method: cfg.method ?? 'POST',
      headers: deliveryHeaders(cfg, job.id, job.attempt, body),
      body,
      timeoutMs: cfg.timeout ?? DEFAULT_TIMEOUT_MS,
      signal: jc.signal,
    });
    // A lost lease means another worker owns the delivery now: leave every write to it.
    if (jc.signal.aborted) throw new Error('the delivery was taken over or the worker is stopping');
    const o = outcomeOf(result);
    if (o.status === 200) {
      const log = logRow(job, s.asset.external_id, o);
      const done = await end({ kind: 'delivered', log, subject: s, enteredAt: job.payload.enteredAt }, jc);
      if (done.kind === 'not-moved')
        jc.log.warn({ deliveryId: job.id, error: done.error }, 'webhook delivered, task stuck');
      return JOB_RECORDED;
    }
    const allowed = (cfg.retryCount ?? DEFAULT_RETRY_COUNT) + 1;
    if (job.attempt >= allowed) {
      await failedForGood(job, s, o, jc);
      return JOB_RECORDED;
    }
    await recorder.submit({ kind: 'log', log: logRow(job, s.asset.external_id, o) });
    // Thrown so the worker queues the next attempt after its backoff.
    throw new Error(failureText(o));
  };
}
