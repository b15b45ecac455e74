import type { AppContext } from '../../context.js';
import { idsFromQuery } from '../../schemas/query-list.js';
import { forbidden, invalidField, notFound } from '../../errors.js';
import { isId } from '../../ids.js';
import type { Executor } from '../../store/db.js';
import {
  findTask,
  findTaskForReader,
  listTasks as listTaskRows,
  type TaskFilter,
} from '../../store/repositories/task.repository.js';
import { findHistoryEntry, historyOfTask } from '../../store/repositories/task-history.repository.js';
import type { TaskHistoryRow, TaskRow } from '../../store/schema.js';
import { can, demand, effectiveRole, type Principal, type ProjectPermission } from '../../access.js';
import { type LoadedProject, loadProject } from '../identity/project-access.js';
import { cachedJson } from '../projects/project-view.js';
import { parseJson } from '../../stored-json.js';
import { parseSort, parseTaskFilter } from './task-query.js';
import { taskLinks } from '../files/layers/brush-layer.js';
import { loadTaskExtras, project, TASK_VIEW_FIELDS, taskView } from './task-view.js';
import { asHandedOut } from './benchmark-queue.service.js';
import { findHandoutOfTask } from '../../store/repositories/benchmark-queue.repository.js';
import type { Stage } from '../../schemas/stage.js';
import { StoredJson } from '../../stored-json.js';

export interface LoadedTask {
  task: TaskRow;
  project: LoadedProject;
  stages: Stage[];
}

/**
 * A task as the caller may see it. People without `readAll` (Labelers) see the tasks assigned
 * to them; another task of a visible project answers 403, of an invisible one 404.
 */
export async function loadTask(
  db: Executor,
  p: Principal,
  taskId: string,
  permission: ProjectPermission = 'read',
): Promise<LoadedTask> {
  const task = isId(taskId) ? await findTask(db, taskId) : undefined;
  if (!task) throw notFound('task');
  const loaded = await loadProject(db, p, task.project_id, permission).catch((err: unknown) => {
    // The task of a project the caller cannot see does not exist for the caller.
    if (err instanceof Error && 'status' in err && err.status === 404) throw notFound('task');
    throw err;
  });
  // A benchmark is never a Labeler's own task: the one handed to them is worked apart (services/quality).
  if (!can(loaded.role, 'readAll') && (task.assignee !== p.email || task.type === 'benchmark')) {
    throw forbidden('this task is not assigned to you');
  }
  return { task, project: loaded, stages: parseJson<Stage[]>(loaded.row.stages, []) };
}

/** GET /task/{id}: the same answers and refusals as loadTask, from one statement. */
export async function getTask(ctx: AppContext, p: Principal, taskId: string) {
  const found = isId(taskId) ? await findTaskForReader(ctx.store.db, taskId, p.email) : undefined;
  const role = found ? effectiveRole(p, found.projectOrgId, found.memberRole) : undefined;
  // The task of a project the caller cannot see does not exist for the caller.
  if (!found || !role) throw notFound('task');
  demand(role, 'read');
  const stages = cachedJson<Stage[]>(found.stages, []);
  let row = found.task;
  if (!can(role, 'readAll') && (row.assignee !== p.email || row.type === 'benchmark')) {
    // A benchmark /next handed the caller reads as the task it is to them, its answer empty.
    const handout = row.type === 'benchmark' ? await findHandoutOfTask(ctx.store.db, taskId, p.email) : undefined;
    if (!handout) throw forbidden('this task is not assigned to you');
    row = asHandedOut(
      row,
      stages.find((s) => s.id === handout.stage_id) ?? { id: handout.stage_id, type: 'Label' },
      p.email,
    );
  }
  return taskView(row, {
    includeAnswer: true,
    stages,
    asset: found.asset,
    batches: found.batchIds,
    links: taskLinks(ctx),
  });
}

export interface TaskListQuery {
  page: number;
  limit: number;
  status?: string | undefined;
  batches?: string | undefined;
  stage?: string | undefined;
  filter?: string | undefined;
  sort?: string | undefined;
  fields?: string | undefined;
  includeAnswer: boolean;
}

export function parseFields(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const fields = raw.split(/[,\s]+/).filter(Boolean);
  const unknown = fields.find((f) => !(TASK_VIEW_FIELDS as readonly string[]).includes(f));
  if (unknown) throw invalidField('fields', `unknown field "${unknown}"`);
  return fields;
}

export async function listTasks(ctx: AppContext, p: Principal, projectId: string, q: TaskListQuery) {
  const db = ctx.store.db;
  const { row, role } = await loadProject(db, p, projectId, 'read');
  let filter: TaskFilter = { projectId: row.id, columns: [], batches: [] };
  if (!can(role, 'readAll')) filter.ownedBy = p.email;
  if (q.status !== undefined) filter.columns.push({ field: 'status', conditions: [{ op: '$eq', value: q.status }] });
  if (q.stage !== undefined)
    filter.columns.push({ field: 'stage', conditions: [{ op: '$in', value: idsFromQuery(q.stage, 'stage') }] });
  if (q.batches !== undefined) filter.batches.push({ op: '$in', value: idsFromQuery(q.batches, 'batches') });
  filter = parseTaskFilter(q.filter, filter, ctx.store.engine);
  const sort = parseSort(q.sort);
  const fields = parseFields(q.fields);
  const { rows, total } = await listTaskRows(db, filter, { offset: (q.page - 1) * q.limit, limit: q.limit, sort });
  const extras = await loadTaskExtras(db, rows);
  const stages = cachedJson<Stage[]>(row.stages, []);
  const includeAnswer = q.includeAnswer || (fields?.includes('answer') ?? false);
  const links = taskLinks(ctx);
  const tasks = rows.map((t) =>
    project(
      taskView(t, {
        includeAnswer,
        stages,
        asset: extras.assets.get(t.asset_id),
        batches: extras.batches.get(t.asset_id) ?? [],
        links,
      }),
      fields,
    ),
  );
  return { tasks, total };
}

export function historyView(h: TaskHistoryRow): Record<string, unknown> {
  return {
    _id: h.id,
    labelTask: h.task_id,
    project: h.project_id,
    asset: h.asset_id,
    stageId: h.stage_id,
    stageName: h.stage_name,
    stageType: h.stage_type,
    answer: new StoredJson(h.answer),
    duration: h.duration,
    completedAt: h.completed_at,
    completedBy: h.completed_by,
    reviewStatus: h.review_status,
    isSkipped: h.is_skipped === 1,
    consensusId: h.consensus_id,
    trigger: h.trigger,
  };
}

async function historyOf(db: Executor, taskId: string) {
  return (await historyOfTask(db, taskId)).map(historyView);
}

export async function taskHistory(ctx: AppContext, p: Principal, taskId: string) {
  const { task } = await loadTask(ctx.store.db, p, taskId, 'readAll');
  const taskHistory = await historyOf(ctx.store.db, task.id);
  return { taskHistory, total: taskHistory.length };
}

/** GET /taskHistory/{id}: one entry by its id, or a task's list by the task's id. */
export async function historyById(ctx: AppContext, p: Principal, id: string) {
  const db = ctx.store.db;
  const entry = isId(id) ? await findHistoryEntry(db, id) : undefined;
  if (!entry) return taskHistory(ctx, p, id);
  await loadTask(db, p, entry.task_id, 'readAll');
  return { taskHistory: historyView(entry) };
}
