import type { WebhookSender } from '../../adapters/webhook/webhook-sender.js';
import type { AppContext } from '../../context.js';
import { newId } from '../../ids.js';
import type { Job, JobContext, JobHandler } from '../../jobs/registry.js';
import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import * as repo from '../../store/repositories/plugin.repository.js';
import type { PluginRow } from '../../store/repositories/plugin.repository.js';
import { projectById, taskById } from '../../store/repositories/row-by-id.repository.js';
import type { ProjectRow, TaskRow } from '../../store/schema.js';
import type { PluginCallJob } from '../../jobs/kinds.js';
import { stageById } from '../../workflow/graph.js';
import { openPluginSecret } from './plugin.service.js';
import { parseJson } from '../../stored-json.js';

/**
 * The job handler of a plugin call: one attempt per run, retried by the worker with backoff
 * (the kind's maxAttempts). The call POSTs `{session, projectId, taskId, orgId, stage,
 * configJSON, categorySchema}` with the header `Secret: <plugin secret>`; any 2xx is a
 * delivered call, and the task then waits for the plugin's answer. A non-2xx, a network error
 * or a timeout on the last attempt, a refused private address, an unknown plugin or a secret
 * that no longer opens leaves the task in the stage with a failed call: the stage's warning.
 * Each attempt leaves one log line `[<ISO date>][<status or error>] <externalId>`.
 */

export const PLUGIN_USER_AGENT = 'Annotary-Plugin/1';
export const PLUGIN_TIMEOUT_MS = 30_000;

interface Subject {
  project: ProjectRow;
  task: TaskRow;
  stage: Stage;
  plugin: PluginRow | undefined;
}

async function loadSubject(db: Executor, job: PluginCallJob): Promise<Subject | string> {
  const project = await projectById(db, job.projectId);
  if (!project || project.deleted === 1) return 'the project was deleted';
  const task = await taskById(db, job.taskId);
  if (!task || task.deleted === 1) return 'the task was deleted';
  if (task.stage_id !== job.stageId || task.stage_entered_at !== job.enteredAt) return 'the task left the stage';
  const stage = stageById(parseJson<Stage[]>(project.stages, []), job.stageId);
  if (!stage || stage.type !== 'Plugin') return 'the stage is no longer a Plugin stage';
  const plugin = stage.pluginId ? await repo.findPlugin(db, project.organization_id, stage.pluginId) : undefined;
  return { project, task, stage, plugin };
}

/** The body of a call (DECISIONS 4). `configJSON` is the stage's pluginConfig as JSON text. */
export function callBody(session: string, s: Subject): Buffer {
  return Buffer.from(
    JSON.stringify({
      session,
      projectId: s.project.id,
      taskId: s.task.id,
      orgId: s.project.organization_id,
      stage: s.stage.id,
      configJSON: JSON.stringify(s.stage.pluginConfig ?? {}),
      categorySchema: parseJson(s.project.category_schema, { tools: [], classifications: [], relations: [] }),
    }),
  );
}

export function pluginCallHandler(
  ctx: AppContext,
  sender: WebhookSender,
  opts: { timeoutMs?: number } = {},
): JobHandler<PluginCallJob> {
  const db = ctx.store.db;
  const now = () => new Date(ctx.clock.now()).toISOString();
  const timeoutMs = opts.timeoutMs ?? PLUGIN_TIMEOUT_MS;

  const logLine = (job: Job<PluginCallJob>, s: Subject, outcome: string) =>
    repo.insertLogs(db, [
      {
        id: newId(ctx.clock.now()),
        session_id: job.id,
        project_id: s.project.id,
        stage_id: s.stage.id,
        task_id: s.task.id,
        source: 'annotary',
        message: `[${now()}][${outcome}] ${s.task.external_id}`,
        created_at: now(),
      },
    ]);

  /** No attempt left (or none can help): the task stays, the stage status counts it. */
  async function failedForGood(job: Job<PluginCallJob>, s: Subject, error: string, jc: JobContext) {
    await repo.setCallStatus(db, job.id, { status: 'failed', error, updated_at: now() }, ['sending', 'waiting']);
    jc.log.warn({ session: job.id, taskId: s.task.id, error }, 'plugin call failed for good');
  }

  return async (job, jc) => {
    const s = await loadSubject(db, job.payload);
    if (typeof s === 'string') {
      const update = { status: 'superseded', error: `dropped: ${s}`, updated_at: now() };
      await repo.setCallStatus(db, job.id, update, ['sending', 'waiting', 'failed']);
      jc.log.info({ session: job.id, taskId: job.payload.taskId, reason: s }, 'plugin call dropped');
      return;
    }
    const known = await repo.findCall(db, job.id);
    // Answered while an earlier attempt was out, or replaced by a re-run: nothing to send.
    if (known && (known.status === 'answered' || known.status === 'superseded')) return;
    const stamp = now();
    await repo.startAttempt(db, {
      id: job.id,
      project_id: s.project.id,
      stage_id: s.stage.id,
      task_id: s.task.id,
      plugin_id: s.stage.pluginId ?? '',
      entered_at: job.payload.enteredAt,
      status: 'sending',
      attempts: job.attempt,
      error: null,
      created_at: known?.created_at ?? stamp,
      updated_at: stamp,
    });
    if (!s.plugin) {
      await logLine(job, s, 'no plugin');
      return failedForGood(job, s, `plugin "${s.stage.pluginId ?? ''}" is not registered to the organization`, jc);
    }
    let secret: string;
    try {
      secret = openPluginSecret(ctx, s.plugin);
    } catch {
      await logLine(job, s, 'secret unreadable');
      return failedForGood(job, s, 'the plugin secret cannot be opened (was the server key changed?)', jc);
    }
    const result = await sender.send({
      url: s.plugin.url,
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': PLUGIN_USER_AGENT,
        Secret: secret,
        'X-Annotary-Session': job.id,
      },
      body: callBody(job.id, s),
      timeoutMs,
      signal: jc.signal,
    });
    // A lost lease means another worker owns the call now: leave every write to it.
    if (jc.signal.aborted) throw new Error('the plugin call was taken over or the worker is stopping');
    const outcome = result.kind === 'answered' ? String(result.status) : result.error;
    await logLine(job, s, outcome);
    if (result.kind === 'answered' && result.status >= 200 && result.status < 300) {
      await repo.setCallStatus(db, job.id, { status: 'waiting', error: null, updated_at: now() }, ['sending']);
      return;
    }
    const error = result.kind === 'answered' ? `HTTP ${result.status}` : result.error;
    // A refused destination stays refused: retrying cannot help.
    if (jc.isLastAttempt || error.startsWith('refused')) return failedForGood(job, s, error, jc);
    await repo.setCallStatus(db, job.id, { status: 'sending', error, updated_at: now() }, ['sending']);
    // Thrown so the worker queues the next attempt after its backoff.
    throw new Error(error);
  };
}
