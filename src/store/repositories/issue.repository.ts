import type { Insertable } from 'kysely';
import type { Engine, Executor } from '../db.js';
import type { IssueRow, IssueTable, TaskRow } from '../schema.js';

/** Reads a live task for a change to its issues, locking its row on PostgreSQL so that concurrent
 * changes to the same task's issues count one after the other (the count is then exact). */
export async function lockIssueTask(trx: Executor, engine: Engine, taskId: string): Promise<TaskRow | undefined> {
  const query = trx.selectFrom('tasks').selectAll().where('id', '=', taskId).where('deleted', '=', 0);
  return (engine === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

/** Sets a task's `open_issues_count` from the issues table itself, never by increments. */
export async function refreshOpenIssuesCount(trx: Executor, taskId: string): Promise<void> {
  await trx
    .updateTable('tasks')
    .set((eb) => ({
      open_issues_count: eb
        .selectFrom('issues')
        .select(eb.fn.countAll<number>().as('n'))
        .where('issues.task_id', '=', taskId)
        .where('issues.status', '=', 'Open')
        .where('issues.deleted', '=', 0),
    }))
    .where('id', '=', taskId)
    .execute();
}

export async function insertIssue(db: Executor, row: Insertable<IssueTable>): Promise<void> {
  await db.insertInto('issues').values(row).execute();
}

/** The task of a live issue. */
export async function issueTaskId(db: Executor, issueId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('issues')
    .select('task_id')
    .where('id', '=', issueId)
    .where('deleted', '=', 0)
    .executeTakeFirst();
  return row?.task_id;
}

export async function findLiveIssue(db: Executor, issueId: string): Promise<IssueRow | undefined> {
  return db.selectFrom('issues').selectAll().where('id', '=', issueId).where('deleted', '=', 0).executeTakeFirst();
}

export async function updateIssue(db: Executor, issueId: string, patch: Partial<IssueRow>): Promise<void> {
  await db.updateTable('issues').set(patch).where('id', '=', issueId).execute();
}

export interface IssueListFilter {
  projectId: string;
  assetId?: string | undefined;
  taskId?: string | undefined;
  stageId?: string | undefined;
  createdBy?: string | undefined;
  status?: string | undefined;
  /** Only the issues this person created or whose task is assigned to them. */
  mineOnly?: string | undefined;
}

/** One page of the project's live issues on live tasks, and how many match in all. */
export async function issuePage(
  db: Executor,
  f: IssueListFilter,
  page: { sort: 'created_at' | 'updated_at'; dir: 'asc' | 'desc'; offset: number; limit: number },
): Promise<{ rows: IssueRow[]; total: number }> {
  let base = db
    .selectFrom('issues as i')
    .innerJoin('tasks as t', 't.id', 'i.task_id')
    .where('i.project_id', '=', f.projectId)
    .where('i.deleted', '=', 0)
    .where('t.deleted', '=', 0);
  if (f.assetId !== undefined) base = base.where('i.asset_id', '=', f.assetId);
  if (f.taskId !== undefined) base = base.where('i.task_id', '=', f.taskId);
  if (f.stageId !== undefined) base = base.where('i.stage_id', '=', f.stageId);
  if (f.createdBy !== undefined) base = base.where('i.created_by', '=', f.createdBy);
  if (f.status !== undefined) base = base.where('i.status', '=', f.status);
  const mine = f.mineOnly;
  if (mine !== undefined)
    base = base.where((eb) => eb.or([eb('i.created_by', '=', mine), eb('t.assignee', '=', mine)]));
  const [rows, count] = await Promise.all([
    base
      .selectAll('i')
      .orderBy(`i.${page.sort}`, page.dir)
      .orderBy('i.id', page.dir)
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
