import type { AppContext } from '../../context.js';
import { forbidden, invalidField, notFound, type FieldError, invalid } from '../../errors.js';
import { isId } from '../../ids.js';
import type { Executor } from '../../store/db.js';
import {
  type Condition,
  FILTER_COLUMNS,
  type FilterField,
  findTask,
  listTasks as listTaskRows,
  OPERATORS,
  type Operator,
  SORT_COLUMNS,
  type SortField,
  type TaskFilter,
} from '../../store/repositories/task.repository.js';
import type { TaskHistoryRow, TaskRow } from '../../store/schema.js';
import { can, type Principal, type ProjectPermission } from '../identity/access.js';
import { type LoadedProject, loadProject } from '../projects/project.service.js';
import { parseJson } from '../projects/project-view.js';
import { loadTaskExtras, project, TASK_VIEW_FIELDS, taskView } from './task-view.js';
import type { Stage } from '../../schemas/stage.js';

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
  if (!can(loaded.role, 'readAll') && task.assignee !== p.email) {
    throw forbidden('this task is not assigned to you');
  }
  return { task, project: loaded, stages: parseJson<Stage[]>(loaded.row.stages, []) };
}

export async function getTask(ctx: AppContext, p: Principal, taskId: string) {
  const db = ctx.store.db;
  const { task, stages } = await loadTask(db, p, taskId);
  const extras = await loadTaskExtras(db, [task]);
  return taskView(task, {
    includeAnswer: true,
    stages,
    asset: extras.assets.get(task.asset_id),
    batches: extras.batches.get(task.asset_id) ?? [],
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

/** A query value that is a plain id or a JSON list of them. */
export function idList(raw: string, field: string): string[] {
  const text = raw.trim();
  if (!text.startsWith('[')) return [text];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidField(field, 'must be an id or a JSON array of ids');
  }
  if (!Array.isArray(parsed) || !parsed.every((v) => typeof v === 'string')) {
    throw invalidField(field, 'must be an id or a JSON array of ids');
  }
  return parsed as string[];
}

function conditionsOf(field: string, raw: unknown, errors: FieldError[]): Condition[] {
  const scalar = (v: unknown) => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
  if (scalar(raw)) return [{ op: '$eq', value: raw as string | number | null }];
  if (Array.isArray(raw) || typeof raw !== 'object' || raw === null) {
    errors.push({ field: `filter.${field}`, message: 'must be a value or an object of operators' });
    return [];
  }
  const out: Condition[] = [];
  for (const [op, value] of Object.entries(raw)) {
    const path = `filter.${field}.${op}`;
    if (!OPERATORS.includes(op as Operator)) {
      errors.push({ field: path, message: `unknown operator; use ${OPERATORS.join(', ')}` });
    } else if (op === '$in' || op === '$nin') {
      if (!Array.isArray(value) || !value.every(scalar) || value.length > 10_000) {
        errors.push({ field: path, message: 'must be an array of values' });
      } else out.push({ op: op as Operator, value: value as (string | number | null)[] });
    } else if (!scalar(value)) {
      errors.push({ field: path, message: 'must be a string, a number or null' });
    } else out.push({ op: op as Operator, value: value as string | number | null });
  }
  return out;
}

/** Parses the `filter` JSON of task listings (DECISIONS section 4), naming each bad part. */
export function parseTaskFilter(raw: string | undefined, base: TaskFilter): TaskFilter {
  if (raw === undefined || raw.trim() === '') return base;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidField('filter', 'must be a JSON object');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw invalidField('filter', 'must be a JSON object');
  const errors: FieldError[] = [];
  const out: TaskFilter = { ...base, columns: [...base.columns], batches: [...base.batches] };
  for (const [key, value] of Object.entries(parsed)) {
    if (key === 'batches') out.batches.push(...conditionsOf(key, value, errors));
    else if (key in FILTER_COLUMNS)
      out.columns.push({ field: key as FilterField, conditions: conditionsOf(key, value, errors) });
    else
      errors.push({
        field: `filter.${key}`,
        message: `cannot filter on this; use ${[...Object.keys(FILTER_COLUMNS), 'batches'].join(', ')}`,
      });
  }
  if (errors.length) throw invalid(errors);
  return out;
}

export function parseSort(raw: string | undefined): { sort: SortField; descending: boolean } {
  const value = raw ?? '-createdAt';
  const descending = value.startsWith('-');
  const key = descending ? value.slice(1) : value;
  if (!(key in SORT_COLUMNS)) {
    throw invalidField('sort', `must be one of ${Object.keys(SORT_COLUMNS).join(', ')}, optionally with -`);
  }
  return { sort: key as SortField, descending };
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
    filter.columns.push({ field: 'stage', conditions: [{ op: '$in', value: idList(q.stage, 'stage') }] });
  if (q.batches !== undefined) filter.batches.push({ op: '$in', value: idList(q.batches, 'batches') });
  filter = parseTaskFilter(q.filter, filter);
  const sort = parseSort(q.sort);
  const fields = parseFields(q.fields);
  const { rows, total } = await listTaskRows(db, filter, { offset: (q.page - 1) * q.limit, limit: q.limit, ...sort });
  const extras = await loadTaskExtras(db, rows);
  const stages = parseJson<Stage[]>(row.stages, []);
  const includeAnswer = q.includeAnswer || (fields?.includes('answer') ?? false);
  const tasks = rows.map((t) =>
    project(
      taskView(t, {
        includeAnswer,
        stages,
        asset: extras.assets.get(t.asset_id),
        batches: extras.batches.get(t.asset_id) ?? [],
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
    answer: JSON.parse(h.answer) as unknown,
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
  const rows = await db
    .selectFrom('task_history')
    .selectAll()
    .where('task_id', '=', taskId)
    .orderBy('completed_at')
    .orderBy('id')
    .execute();
  return rows.map(historyView);
}

export async function taskHistory(ctx: AppContext, p: Principal, taskId: string) {
  const { task } = await loadTask(ctx.store.db, p, taskId, 'readAll');
  const taskHistory = await historyOf(ctx.store.db, task.id);
  return { taskHistory, total: taskHistory.length };
}

/** GET /taskHistory/{id}: one entry by its id, or a task's list by the task's id. */
export async function historyById(ctx: AppContext, p: Principal, id: string) {
  const db = ctx.store.db;
  const entry = isId(id)
    ? await db.selectFrom('task_history').selectAll().where('id', '=', id).executeTakeFirst()
    : undefined;
  if (!entry) return taskHistory(ctx, p, id);
  await loadTask(db, p, entry.task_id, 'readAll');
  return { taskHistory: historyView(entry) };
}
