import type { AppContext } from '../../context.js';
import { AppError, badRequest, forbidden, invalid, notFound, type FieldError } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import type { IssueStatus } from '../../schemas/issue.js';
import type { Executor } from '../../store/db.js';
import * as issueRepo from '../../store/repositories/issue.repository.js';
import type { IssueRow } from '../../store/schema.js';
import { can, type Principal, type ProjectRole } from '../../access.js';
import {
  answerObjectIds,
  maskObjectIds,
  checkErrorCodes,
  type IssueComment,
  type IssueErrorCode,
  issueView,
  positionError,
} from './issue-rules.js';
import { findLiveAsset } from '../../store/repositories/asset-media.repository.js';
import { frameCountOf } from '../../workflow/answer.js';
import { type LoadedProject, loadProject } from '../identity/project-access.js';
import { checkPctDetails } from './pct-details.js';
import { projectSettings } from '../projects/project-view.js';
import { loadTask } from '../tasks/task.service.js';

export { listIssues } from './issue-list.js';

export interface CreateIssueInput {
  content: string;
  labelTask: string;
  position?: string | undefined;
  page?: number | undefined;
  objectId?: string | undefined;
  errorCodes?: IssueErrorCode[] | undefined;
  pctDetails?: Record<string, unknown> | undefined;
}

const nowIso = (ctx: AppContext) => new Date(ctx.clock.now()).toISOString();

/** An issue's pctDetails held to what is known of them, frames counted on the task's asset. */
async function checkDetails(trx: Executor, assetId: string, details: Record<string, unknown>, errors: FieldError[]) {
  checkPctDetails(details, frameCountOf(await findLiveAsset(trx, assetId)), errors);
}

function cleanContent(content: string, errors: FieldError[], field = 'content'): string {
  const text = content.trim();
  if (!text) errors.push({ field, message: 'must not be blank' });
  return text;
}

/**
 * POST /issues: anyone who may read the task (a Labeler: a task assigned to them) opens an
 * issue on it; the task's open-issue count changes in the same transaction.
 */
export async function createIssue(ctx: AppContext, p: Principal, input: CreateIssueInput) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { project } = await loadTask(trx, p, input.labelTask, 'read').catch((err: unknown) => {
      if (err instanceof AppError && err.status === 404) {
        throw new AppError('NOT_FOUND', 'task not found', [{ field: 'labelTask', message: 'no such task' }]);
      }
      throw err;
    });
    const task = await issueRepo.lockIssueTask(trx, ctx.store.engine, input.labelTask);
    if (!task) throw new AppError('NOT_FOUND', 'task not found', [{ field: 'labelTask', message: 'no such task' }]);
    const errors: FieldError[] = [];
    const content = cleanContent(input.content, errors);
    if (input.position !== undefined) {
      const problem = positionError(input.position);
      if (problem) errors.push({ field: 'position', message: problem });
    }
    if (input.objectId !== undefined) {
      // A point on a mask (a segmentation object) pins the issue where the mask is: the middle of
      // a ring's box may lie outside it.
      if (input.position !== undefined && !maskObjectIds(task.answer).has(input.objectId)) {
        errors.push({
          field: 'objectId',
          message: 'cannot be given together with position, except on a segmentation object',
        });
      } else if (!answerObjectIds(task.answer).has(input.objectId)) {
        errors.push({ field: 'objectId', message: "no object of the task's answer has this objectId" });
      }
    }
    const codes = checkErrorCodes(input.errorCodes ?? [], projectSettings(project.row), errors);
    if (input.pctDetails !== undefined) await checkDetails(trx, task.asset_id, input.pctDetails, errors);
    if (errors.length) throw invalid(errors);
    const now = nowIso(ctx);
    const row: IssueRow = {
      id: newId(ctx.clock.now()),
      project_id: task.project_id,
      task_id: task.id,
      asset_id: task.asset_id,
      stage_id: task.stage_id,
      content,
      position: input.position?.trim() ?? null,
      page: input.page ?? null,
      object_id: input.objectId ?? null,
      error_codes: JSON.stringify(codes),
      pct_details: input.pctDetails === undefined ? null : JSON.stringify(input.pctDetails),
      status: 'Open',
      comments: '[]',
      created_by: p.email,
      created_at: now,
      updated_at: now,
      deleted: 0,
    };
    await issueRepo.insertIssue(trx, row);
    await issueRepo.refreshOpenIssuesCount(trx, task.id);
    return { issue: issueView(row) };
  });
}

interface LoadedIssue {
  issue: IssueRow;
  project: LoadedProject;
}

/** Who may read an issue: readers of every task, its creator, and the assignee of its task. */
function maySee(role: ProjectRole, p: Principal, issue: IssueRow, assignee: string | null): boolean {
  return can(role, 'readAll') || issue.created_by === p.email || assignee === p.email;
}

/**
 * An issue as the caller may see it: 404 when it, its task or its project is gone or invisible
 * (or it is not in `projectId` when given), 403 when a Labeler's project is visible but the
 * issue is not theirs. Locks the issue's task on PostgreSQL before reading the issue.
 */
async function loadIssue(
  ctx: AppContext,
  trx: Executor,
  p: Principal,
  issueId: string,
  projectId?: string,
): Promise<LoadedIssue> {
  const taskId = isId(issueId) ? await issueRepo.issueTaskId(trx, issueId) : undefined;
  const task = taskId ? await issueRepo.lockIssueTask(trx, ctx.store.engine, taskId) : undefined;
  const issue = task ? await issueRepo.findLiveIssue(trx, issueId) : undefined;
  if (!task || !issue || (projectId !== undefined && projectId !== issue.project_id)) throw notFound('issue');
  const project = await loadProject(trx, p, issue.project_id, 'read').catch((err: unknown) => {
    if (err instanceof AppError && err.status === 404) throw notFound('issue');
    throw err;
  });
  if (!maySee(project.role, p, issue, task.assignee)) throw forbidden('this issue is not on a task of yours');
  return { issue, project };
}

/** Its creator, or anyone who may import (Lead, Manager), changes or deletes an issue. */
function demandOwnerOrImport(loaded: LoadedIssue, p: Principal): void {
  if (loaded.issue.created_by !== p.email && !can(loaded.project.role, 'import')) {
    throw forbidden('only the creator of an issue, a Lead or a Manager may change it');
  }
}

export interface UpdateIssueInput {
  content?: string | undefined;
  status?: IssueStatus | undefined;
  errorCodes?: IssueErrorCode[] | undefined;
  pctDetails?: Record<string, unknown> | undefined;
}

const UPDATABLE = ['content', 'status', 'errorCodes', 'pctDetails'] as const;

/**
 * POST /issues/{id}: content, status (Open|Resolved), error codes and point-cloud details (any
 * one of them alone: the [client] sends `{pctDetails}` by itself); the open count follows.
 */
export async function updateIssue(ctx: AppContext, p: Principal, issueId: string, input: UpdateIssueInput) {
  if (UPDATABLE.every((k) => input[k] === undefined)) {
    throw badRequest(`the body must hold at least one of ${UPDATABLE.join(', ')}`);
  }
  return ctx.store.db.transaction().execute(async (trx) => {
    const loaded = await loadIssue(ctx, trx, p, issueId);
    demandOwnerOrImport(loaded, p);
    const errors: FieldError[] = [];
    const patch: Partial<IssueRow> = { updated_at: nowIso(ctx) };
    if (input.content !== undefined) patch.content = cleanContent(input.content, errors);
    if (input.status !== undefined) patch.status = input.status;
    if (input.errorCodes !== undefined) {
      patch.error_codes = JSON.stringify(
        checkErrorCodes(input.errorCodes, projectSettings(loaded.project.row), errors),
      );
    }
    if (input.pctDetails !== undefined) {
      await checkDetails(trx, loaded.issue.asset_id, input.pctDetails, errors);
      patch.pct_details = JSON.stringify(input.pctDetails);
    }
    if (errors.length) throw invalid(errors);
    await issueRepo.updateIssue(trx, loaded.issue.id, patch);
    await issueRepo.refreshOpenIssuesCount(trx, loaded.issue.task_id);
    return { issue: issueView({ ...loaded.issue, ...patch }) };
  });
}

/** POST /issues/{id}/comment: anyone who may read the issue adds a comment to it. */
export async function commentIssue(ctx: AppContext, p: Principal, issueId: string, content: string) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { issue } = await loadIssue(ctx, trx, p, issueId);
    const errors: FieldError[] = [];
    const text = cleanContent(content, errors);
    if (errors.length) throw invalid(errors);
    const now = nowIso(ctx);
    const comment: IssueComment = { _id: newId(ctx.clock.now()), content: text, createdBy: p.email, createdAt: now };
    const comments = [...(JSON.parse(issue.comments) as IssueComment[]), comment];
    const patch = { comments: JSON.stringify(comments), updated_at: now };
    await issueRepo.updateIssue(trx, issue.id, patch);
    return { issue: issueView({ ...issue, ...patch }) };
  });
}

/** DELETE /issues/{id}?project=: soft-deletes the issue; the task's count follows. */
export async function deleteIssue(ctx: AppContext, p: Principal, issueId: string, projectId?: string) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const loaded = await loadIssue(ctx, trx, p, issueId, projectId);
    demandOwnerOrImport(loaded, p);
    const now = nowIso(ctx);
    await issueRepo.updateIssue(trx, loaded.issue.id, { deleted: 1, updated_at: now });
    await issueRepo.refreshOpenIssuesCount(trx, loaded.issue.task_id);
    return { issue: { ...issueView({ ...loaded.issue, updated_at: now }), deleted: true } };
  });
}
