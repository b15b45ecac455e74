import type { AppContext } from '../../context.js';
import { AppError, invalidField } from '../../errors.js';
import { isId } from '../../ids.js';
import type { IssueStatus } from '../../schemas/issue.js';
import { issuePage } from '../../store/repositories/issue.repository.js';
import { findTask } from '../../store/repositories/task.repository.js';
import { can, type Principal } from '../../access.js';
import { issueView } from './issue-rules.js';
import { loadProject } from '../identity/project-access.js';
import { projectInfo } from '../projects/project-view.js';

export interface IssueListQuery {
  page: number;
  limit: number;
  project?: string | undefined;
  asset?: string | undefined;
  labelTask?: string | undefined;
  stage?: string | undefined;
  createdBy?: string | undefined;
  status?: IssueStatus | undefined;
  sort: string;
}

const SORT = { createdAt: 'created_at', updatedAt: 'updated_at' } as const;

const taskNotFound = () =>
  new AppError('NOT_FOUND', 'task not found', [{ field: 'labelTask', message: 'no such task' }]);

/** The project a listing is about: `project`, or else the project of `labelTask`. */
async function projectOf(ctx: AppContext, q: IssueListQuery): Promise<string> {
  if (q.project !== undefined) return q.project;
  if (q.labelTask === undefined) throw invalidField('project', 'is required unless labelTask is given');
  const task = isId(q.labelTask) ? await findTask(ctx.store.db, q.labelTask) : undefined;
  if (!task) throw taskNotFound();
  return task.project_id;
}

/**
 * GET /issues: the issues of a project (or of one task), newest first by default. Readers of
 * every task see every issue; a Labeler sees the issues they created and those on tasks
 * assigned to them. Issues of deleted tasks are not listed.
 */
export async function listIssues(ctx: AppContext, p: Principal, q: IssueListQuery) {
  const db = ctx.store.db;
  const projectId = await projectOf(ctx, q);
  const { row, role } = await loadProject(db, p, projectId, 'read').catch((err: unknown) => {
    // A task whose project the caller cannot see does not exist for the caller.
    if (q.project === undefined && err instanceof AppError && err.status === 404) throw taskNotFound();
    throw err;
  });
  let stageId: string | undefined;
  if (q.stage !== undefined) {
    // A stage by id, or else by its name.
    const stages = projectInfo(row).stages;
    const stage = stages.find((s) => s.id === q.stage) ?? stages.find((s) => s.name === q.stage);
    stageId = stage?.id ?? q.stage;
  }
  const descending = q.sort.startsWith('-');
  const column = SORT[(descending ? q.sort.slice(1) : q.sort) as keyof typeof SORT] ?? SORT.createdAt;
  const { rows, total } = await issuePage(
    db,
    {
      projectId: row.id,
      assetId: q.asset,
      taskId: q.labelTask,
      stageId,
      createdBy: q.createdBy?.trim().toLowerCase(),
      status: q.status,
      mineOnly: can(role, 'readAll') ? undefined : p.email,
    },
    { sort: column, dir: descending ? 'desc' : 'asc', offset: (q.page - 1) * q.limit, limit: q.limit },
  );
  return { issues: rows.map(issueView), total };
}
