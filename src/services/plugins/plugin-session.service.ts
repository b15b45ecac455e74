import { audit } from '../audit/audit.service.js';
import type { AppContext } from '../../context.js';
import { taskLinks } from '../files/layers/brush-layer.js';
import { conflict, invalid, invalidField, notFound } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import { insertJobs, tasksWithPendingStageEntry } from '../../jobs/queue.js';
import {
  MAX_LOG_LINE,
  type PluginLogQuery,
  type PluginLogRequest,
  type PluginResponseRequest,
} from '../../schemas/plugin.js';
import type { Stage } from '../../schemas/stage.js';
import { chunked } from '../../store/chunks.js';
import type { Executor } from '../../store/db.js';
import * as repo from '../../store/repositories/plugin.repository.js';
import type { PluginCallRow, PluginLogRow } from '../../store/repositories/plugin.repository.js';
import { lockExistingTask } from '../../store/repositories/row-by-id.repository.js';
import { tasksWaitingIn } from '../../store/repositories/webhook.repository.js';
import { validateAnswer } from '../../workflow/answer.js';
import { PLUGIN_CALL_JOB, type PluginCallJob } from '../../jobs/kinds.js';
import { stageById } from '../../workflow/graph.js';
import type { ProjectInfo } from '../../workflow/types.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import type { StageWarning } from '../../workflow/stage-warning.js';
import { parseJson } from '../../stored-json.js';
import { allowedExit, currentStage, fullTaskView, routingFor, takeExit } from '../tasks/task-move.js';
import { loadTask } from '../tasks/task.service.js';

/**
 * What a plugin calls back with its session: its answer (`POST /pluginResponse`), its log
 * lines (`POST /pluginLog`), read at `GET /pluginLog`; and the re-run of a Plugin stage
 * (`POST /project/{id}/rerun-plugin`). A plugin calls with an API key of a Lead or Manager of
 * the project (or an organization owner/admin), as for `/annotate?isPlugin=true`.
 */

const oneLine = (text: string, max: number) => text.replace(/\s+/g, ' ').trim().slice(0, max);

async function loadCall(db: Executor, session: string): Promise<PluginCallRow> {
  // Sessions are ids we made: anything else is unknown without asking the store.
  const call = isId(session) ? await repo.findCall(db, session) : undefined;
  if (!call) throw notFound('plugin session');
  return call;
}

/** POST /pluginResponse: the answer moves the task by next[0]; `error` leaves it with a warning. */
export async function pluginResponse(ctx: AppContext, p: Principal, body: PluginResponseRequest) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const call = await loadCall(trx, body.session);
    const { project } = await loadTask(trx, p, call.task_id, 'import');
    // Locked on PostgreSQL: of two answers at once, the second sees the task already moved on.
    const task = await lockExistingTask(trx, ctx.store.engine, call.task_id);
    const visit = task.deleted === 0 && task.stage_id === call.stage_id && task.stage_entered_at === call.entered_at;
    if (!visit) throw conflict(`the task has left the Plugin stage "${call.stage_id}" of this session`);
    if (call.status === 'answered') throw conflict('this session was already answered');
    const run = routingFor(trx, ctx, project.row, p.email);
    const stage = currentStage(run, task);
    if (stage.type !== 'Plugin') throw conflict(`stage "${stage.id}" is no longer a Plugin stage`);
    const now = run.env.now();
    if (body.error !== undefined && body.error !== false) {
      const detail = typeof body.error === 'string' ? body.error : body.message;
      const error = `the plugin reported an error${detail ? `: ${oneLine(detail, 300)}` : ''}`;
      await repo.setCallStatus(trx, call.id, { status: 'failed', error, updated_at: now });
      const log = {
        id: newId(ctx.clock.now()),
        session_id: call.id,
        source: 'plugin',
        message: error,
        created_at: now,
      };
      await repo.insertLogs(trx, [{ ...log, project_id: call.project_id, stage_id: call.stage_id, task_id: task.id }]);
      await audit(trx, ctx.clock, p, {
        operation: 'plugin.response',
        targetType: 'task',
        targetId: task.id,
        projectId: call.project_id,
        fields: ['error'],
      });
      return {
        session: call.id,
        status: 'failed',
        task: await fullTaskView(trx, task, run.env.project.stages, taskLinks(ctx)),
      };
    }
    if (!body.response) throw invalidField('response', 'is required unless error is true');
    const wrapped = body.response.answer !== undefined;
    const input = body.response.answer ?? body.response;
    const base = wrapped ? 'response.answer' : 'response';
    const checked = validateAnswer(input, run.env.project.categorySchema, { submit: true }, base);
    if (checked.errors.length) throw invalid(checked.errors);
    const row = {
      ...task,
      answer: JSON.stringify(checked.value),
      duration: task.duration + (body.duration ?? 0),
      total_duration: task.total_duration + (body.duration ?? 0),
      updated_at: now,
      updated_by: p.email,
    };
    const moved = await takeExit(run, trx, row, stage, allowedExit(stage, { kind: 'submit', byPlugin: true }));
    await repo.setCallStatus(trx, call.id, { status: 'answered', error: null, updated_at: now });
    await audit(trx, ctx.clock, p, {
      operation: 'plugin.response',
      targetType: 'task',
      targetId: task.id,
      projectId: call.project_id,
      fields: ['answer', ...(body.duration ? ['duration'] : [])],
    });
    return {
      session: call.id,
      status: 'answered',
      task: await fullTaskView(trx, moved, run.env.project.stages, taskLinks(ctx)),
    };
  });
}

/** POST /pluginLog: keeps the plugin's lines (`logs` array and/or `message`) under its session. */
export async function pluginLog(ctx: AppContext, p: Principal, body: PluginLogRequest) {
  const db = ctx.store.db;
  const call = await loadCall(db, body.session);
  await loadProject(db, p, call.project_id, 'import');
  const lines = [...(body.logs ?? []), ...(body.message !== undefined ? [body.message] : [])].map((l) =>
    (typeof l === 'string' ? l : JSON.stringify(l)).slice(0, MAX_LOG_LINE),
  );
  if (lines.length === 0) throw invalidField('logs', 'send logs (an array of lines) or message');
  const now = new Date(ctx.clock.now()).toISOString();
  const rows = lines.map((message) => ({
    id: newId(ctx.clock.now()),
    session_id: call.id,
    project_id: call.project_id,
    stage_id: call.stage_id,
    task_id: call.task_id,
    source: 'plugin',
    message,
    created_at: now,
  }));
  for (const part of chunked(rows, 200)) await repo.insertLogs(db, part);
  return { session: call.id, logged: rows.length };
}

function logView(r: PluginLogRow) {
  const { id, session_id, project_id, stage_id, task_id, source, message, created_at } = r;
  return {
    _id: id,
    session: session_id,
    project: project_id,
    stageId: stage_id,
    taskId: task_id,
    source,
    message,
    createdAt: created_at,
  };
}

/** GET /pluginLog: a session's lines, or a project's (optionally one stage's or task's). */
export async function listPluginLogs(ctx: AppContext, p: Principal, q: PluginLogQuery) {
  const db = ctx.store.db;
  let projectId = q.project;
  if (q.session !== undefined) {
    const call = await loadCall(db, q.session);
    if (projectId !== undefined && projectId !== call.project_id) throw notFound('plugin session');
    projectId = call.project_id;
  }
  if (projectId === undefined) throw invalidField('session', 'give a session, or a project');
  await loadProject(db, p, projectId, 'readAll');
  const page = q.page ?? 1;
  const limit = q.limit ?? 10;
  const { rows, total } = await repo.listLogs(db, {
    session: q.session,
    projectId,
    stageId: q.stageId,
    taskId: q.taskId,
    offset: (page - 1) * limit,
    limit,
    descending: q.sort === '-createdAt',
  });
  return { logs: rows.map(logView), total };
}

/** POST /project/{id}/rerun-plugin: a new call for every task waiting in the Plugin stage(s). */
export async function rerunPlugin(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  input: { stageId?: string | undefined },
) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'import');
    const stages = parseJson<Stage[]>(row.stages, []);
    let chosen = stages.filter((s) => s.type === 'Plugin');
    if (input.stageId !== undefined) {
      const stage = stageById(stages, input.stageId);
      if (!stage) throw invalidField('stageId', `no stage "${input.stageId}" in this project`);
      if (stage.type !== 'Plugin') throw invalidField('stageId', `stage "${input.stageId}" is not a Plugin stage`);
      chosen = [stage];
    }
    const stageIds = chosen.map((s) => s.id);
    const pending = await tasksWithPendingStageEntry(trx, PLUGIN_CALL_JOB, row.id);
    const waiting = await tasksWaitingIn(trx, row.id, stageIds);
    const resend = waiting.filter((t) => !pending.has(t.id));
    const now = new Date(ctx.clock.now()).toISOString();
    for (const part of chunked(
      resend.map((t) => t.id),
      1000,
    ))
      await repo.supersedeCalls(trx, part, now);
    const jobs = resend.map((t) => {
      const payload: PluginCallJob = {
        projectId: row.id,
        taskId: t.id,
        stageId: t.stage_id,
        enteredAt: t.stage_entered_at,
      };
      return { id: newId(ctx.clock.now()), kind: PLUGIN_CALL_JOB, payload };
    });
    await insertJobs(trx, jobs, ctx.clock);
    await audit(trx, ctx.clock, p, {
      operation: 'plugin.rerun',
      targetType: 'project',
      targetId: row.id,
      projectId: row.id,
      fields: input.stageId === undefined ? [] : ['stageId'],
    });
    return { plugin: { stageIds, queued: jobs.length } };
  });
}

/**
 * Stage-status warning provider: per Plugin stage, the tasks waiting there after a failed call
 * (error answer, non-2xx, network error, timeout), their count, and the latest error.
 */
export async function pluginWarnings(db: Executor, project: ProjectInfo): Promise<Map<string, StageWarning[]>> {
  const out = new Map<string, StageWarning[]>();
  if (!project.stages.some((s) => s.type === 'Plugin')) return out;
  for (const f of await repo.callFailuresByStage(db, project.id)) {
    const warning = {
      kind: 'plugin',
      failedCount: f.failedCount,
      lastError: f.lastError,
      lastFailedAt: f.lastFailedAt,
    };
    out.set(f.stageId, [warning]);
  }
  return out;
}
