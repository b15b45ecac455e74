import type { AppContext } from '../../context.js';
import { audit } from '../audit/audit.service.js';
import { invalidField } from '../../errors.js';
import { newId } from '../../ids.js';
import { insertJobs, tasksWithPendingStageEntry } from '../../jobs/queue.js';
import type { Stage } from '../../schemas/stage.js';
import { chunked } from '../../store/chunks.js';
import type { Executor } from '../../store/db.js';
import {
  deleteFailures,
  failuresByStage,
  listLogs,
  tasksWaitingIn,
  type WebhookLogRow,
} from '../../store/repositories/webhook.repository.js';
import { WEBHOOK_DELIVERY_JOB, type WebhookDeliveryJob } from '../../jobs/kinds.js';
import type { ProjectInfo } from '../../workflow/types.js';
import type { Principal } from '../../access.js';
import { projectInfo } from '../projects/project-view.js';
import { loadProject } from '../identity/project-access.js';
import type { StageWarning } from '../../workflow/stage-warning.js';

/** The Webhook stages an operation names: `stageId` (which must be one), or all of them. */
function webhookStages(stages: readonly Stage[], stageId: string | undefined): Stage[] {
  if (stageId === undefined) return stages.filter((s) => s.type === 'Webhook');
  const stage = stages.find((s) => s.id === stageId);
  if (!stage) throw invalidField('stageId', `no stage "${stageId}" in this project`);
  if (stage.type !== 'Webhook')
    throw invalidField('stageId', `stage "${stageId}" is a ${stage.type} stage, not Webhook`);
  return [stage];
}

/**
 * POST /project/{id}/rerun-webhook: a new delivery (a new delivery id) for every task waiting
 * in the stage(s), in one transaction. A task whose delivery is still queued or being retried
 * is skipped: it will be sent anyway, and a second delivery would reach the receiver as a
 * different event. The re-sent tasks leave the stage's warning count at once.
 */
export async function rerunWebhook(ctx: AppContext, p: Principal, projectId: string, input: { stageId?: string }) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'import');
    const stages = webhookStages(projectInfo(row).stages, input.stageId);
    const stageIds = stages.map((s) => s.id);
    const pending = await tasksWithPendingStageEntry(trx, WEBHOOK_DELIVERY_JOB, row.id);
    const waiting = await tasksWaitingIn(trx, row.id, stageIds);
    const resend = waiting.filter((t) => !pending.has(t.id));
    const jobs = resend.map((t) => {
      const payload: WebhookDeliveryJob = {
        projectId: row.id,
        taskId: t.id,
        stageId: t.stage_id,
        enteredAt: t.stage_entered_at,
      };
      return { id: newId(ctx.clock.now()), kind: WEBHOOK_DELIVERY_JOB, payload };
    });
    await insertJobs(trx, jobs, ctx.clock);
    for (const part of chunked(resend.map((t) => t.id))) await deleteFailures(trx, part);
    await audit(trx, ctx.clock, p, {
      operation: 'webhook.rerun',
      targetType: 'project',
      targetId: row.id,
      projectId: row.id,
    });
    return { webhook: { stageIds, queued: jobs.length, alreadyQueued: waiting.length - resend.length } };
  });
}

/** `[<ISO date>][<status or error>] <externalId>`, the contract's log form. */
export function logLine(r: Pick<WebhookLogRow, 'created_at' | 'status' | 'error' | 'external_id'>): string {
  const what = [r.status === null ? '' : String(r.status), r.error ?? ''].filter(Boolean).join(' ');
  return `[${r.created_at}][${what}] ${r.external_id}`;
}

/** GET /project/{id}/webhookLogs: one line per delivery attempt, newest first. */
export async function listWebhookLogs(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  q: { stageId?: string | undefined; page: number; limit: number },
) {
  const db = ctx.store.db;
  const { row } = await loadProject(db, p, projectId, 'readAll');
  // Without stageId: every log line of the project, removed stages' included.
  const stageIds =
    q.stageId === undefined ? undefined : webhookStages(projectInfo(row).stages, q.stageId).map((s) => s.id);
  const { rows, total } = await listLogs(db, {
    projectId: row.id,
    stageIds,
    offset: (q.page - 1) * q.limit,
    limit: q.limit,
  });
  const logs = rows.map((r) => ({
    _id: r.id,
    line: logLine(r),
    date: r.created_at,
    status: r.status,
    error: r.error,
    externalId: r.external_id,
    stageId: r.stage_id,
    taskId: r.task_id,
    deliveryId: r.delivery_id,
    attempt: r.attempt,
  }));
  return { logs, total };
}

/** Stage warning provider: tasks waiting in a Webhook stage whose delivery failed for good. */
export async function webhookWarnings(db: Executor, project: ProjectInfo): Promise<Map<string, StageWarning[]>> {
  const out = new Map<string, StageWarning[]>();
  if (!project.stages.some((s) => s.type === 'Webhook')) return out;
  for (const f of await failuresByStage(db, project.id)) {
    const warning = {
      kind: 'webhook',
      failedCount: f.failedCount,
      lastError: f.lastError,
      lastFailedAt: f.lastFailedAt,
    };
    out.set(f.stageId, [warning]);
  }
  return out;
}
