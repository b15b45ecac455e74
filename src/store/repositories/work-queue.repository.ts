import { type AliasedSelectQueryBuilder, type ExpressionBuilder, sql } from 'kysely';
import type { Executor } from '../db.js';
import type { Database, TaskRow } from '../schema.js';

/*
 * The work queue's rows: the tasks a person holds in a stage, the ones /next may hand them, the
 * claim of one, and the counts the queue and the editor's "Task 3 of 12" show.
 */

/**
 * The caller's own tasks in a stage, in /next's order: /next answers the first of them before
 * taking a free one, and the work queue counts them (index tasks_stage_assignee, migration 013).
 */
export function heldByCaller(db: Executor, projectId: string, stageId: string, email: string) {
  return db
    .selectFrom('tasks')
    .where('project_id', '=', projectId)
    .where('stage_id', '=', stageId)
    .where('deleted', '=', 0)
    .where('assignee', '=', email);
}

/**
 * The tasks of a stage /next may hand the caller: live, assigned to nobody, and no consensus copy
 * of an asset whose other copy of the same round the caller holds or submitted (otherwise one
 * person could agree with themselves). /next takes from these, the work queue counts them: one
 * predicate, so the count and Start never disagree. Tasks the caller skipped are included: /next
 * hands them back when nothing else waits.
 */
export function freeForCaller(db: Executor, projectId: string, stageId: string, email: string) {
  return (
    db
      .selectFrom('tasks')
      .where('project_id', '=', projectId)
      .where('stage_id', '=', stageId)
      .where('deleted', '=', 0)
      .where('assignee', 'is', null)
      // Benchmarks are handed out apart (services/quality), never claimed.
      .where('tasks.type', '<>', 'benchmark')
      // Other tasks pass the first test and never run the subquery.
      .where((eb) =>
        eb.or([
          eb('tasks.type', '<>', 'consensus'),
          eb.not(
            eb.exists(
              eb
                .selectFrom('tasks as sibling')
                .select('sibling.id')
                .whereRef('sibling.parent_task_id', '=', 'tasks.parent_task_id')
                .whereRef('sibling.consensus_id', '=', 'tasks.consensus_id')
                .whereRef('sibling.id', '<>', 'tasks.id')
                .where('sibling.deleted', '=', 0)
                .where((s) => s.or([s('sibling.assignee', '=', email), s('sibling.completed_by', '=', email)])),
            ),
          ),
        ]),
      )
  );
}

/**
 * Makes one person's /next calls in a project take turns on PostgreSQL (a lock on the person and
 * project, held to the end of `trx`).
 */
export async function lockCallerTurn(trx: Executor, projectId: string, email: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`next:${projectId}:${email}`}, 0))`.execute(trx);
}

export interface Claim {
  projectId: string;
  stageId: string;
  email: string;
  now: string;
  /** Leave out the tasks the caller skipped in the stage. */
  passOverSkipped: boolean;
}

/**
 * The task /next answers: the first the caller holds in the stage, else a free one assigned to
 * them by one atomic UPDATE (`postgres`: its pick locks the row, passing over rows another
 * caller is taking). Undefined when nothing is free.
 */
export async function claimTask(db: Executor, postgres: boolean, c: Claim): Promise<TaskRow | undefined> {
  const { projectId, stageId, email } = c;
  const notSkippedByCaller = (eb: ExpressionBuilder<Database, 'tasks'>) =>
    eb.not(
      eb.exists(
        eb
          .selectFrom('task_history as skipped')
          .select('skipped.id')
          .whereRef('skipped.task_id', '=', 'tasks.id')
          .where('skipped.stage_id', '=', stageId)
          .where('skipped.is_skipped', '=', 1)
          .where('skipped.completed_by', '=', email),
      ),
    );
  const held = heldByCaller(db, projectId, stageId, email)
    .selectAll()
    .$if(c.passOverSkipped, (q) => q.where(notSkippedByCaller))
    // A task a reviewer sent back comes before the rest the caller holds.
    .orderBy(sql`case when review_status = 'Rejected' then 0 else 1 end`)
    .orderBy('priority', 'desc')
    .orderBy('created_at')
    .orderBy('id');
  const mine = await held.executeTakeFirst();
  if (mine) return mine;
  // Atomic on both engines: a single UPDATE whose subquery picks a free task. On PostgreSQL,
  // SKIP LOCKED lets concurrent callers pass over a row another caller is taking.
  const pick = freeForCaller(db, projectId, stageId, email)
    .select('id')
    .$if(c.passOverSkipped, (q) => q.where(notSkippedByCaller))
    .orderBy('priority', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .limit(1);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const claimed = await db
      .updateTable('tasks')
      .set({ assignee: email, updated_at: c.now })
      .where('id', '=', postgres ? pick.forUpdate().skipLocked() : pick)
      .where('assignee', 'is', null)
      // SQLite: the check that the caller holds nothing and the claim are one statement, so a
      // second call of the same person (this process or another on the file) cannot slip
      // between them; it takes nothing and answers the task the first call took.
      .where((eb) => eb.not(eb.exists(held.clearSelect().select('tasks.id').clearOrderBy())))
      .returningAll()
      .executeTakeFirst();
    if (claimed) return claimed;
    // Nothing free, the caller's own concurrent call took one, or another caller won the row.
    const taken = await held.executeTakeFirst();
    if (taken) return taken;
    const free = await pick.executeTakeFirst();
    if (!free) return undefined;
  }
  return undefined;
}

/**
 * POST /task/{taskId}/take: assigns one named task to the caller when they hold it already or
 * /next could hand it to them, and it still rests live in `stageId`. Undefined otherwise.
 */
export async function takeNamedTask(
  trx: Executor,
  t: { projectId: string; taskId: string; stageId: string; email: string; now: string },
): Promise<TaskRow | undefined> {
  return trx
    .updateTable('tasks')
    .set({ assignee: t.email, updated_at: t.now })
    .where('id', '=', t.taskId)
    .where((eb) =>
      eb.or([
        eb('assignee', '=', t.email),
        eb(
          'id',
          'in',
          freeForCaller(trx, t.projectId, t.stageId, t.email).select('tasks.id').where('tasks.id', '=', t.taskId),
        ),
      ]),
    )
    .where('stage_id', '=', t.stageId)
    .where('deleted', '=', 0)
    .returningAll()
    .executeTakeFirst();
}

/** Gives a task back to its stage's queue, while `email` still holds it. */
export async function releaseHeldTask(trx: Executor, taskId: string, email: string, now: string): Promise<void> {
  await trx
    .updateTable('tasks')
    .set({ assignee: null, updated_at: now, updated_by: email })
    .where('id', '=', taskId)
    .where('assignee', '=', email)
    .execute();
}

/** How many rows a limited query finds (its limit bounds the count and the work). */
async function countUpTo(db: Executor, rows: AliasedSelectQueryBuilder<{ one: number }, 'counted'>): Promise<number> {
  const row = await db
    .selectFrom(rows)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface QueueCount {
  projectId: string;
  stageId: string;
  email: string;
  /** Counting stops past this many (none: counts all). */
  cap?: number | undefined;
  /** A task left out of the count (the one the caller has open). */
  except?: string | undefined;
}

/** The rows of `tasks` (held or free) in a stage, up to `cap + 1` when capped. */
function countTasks(db: Executor, tasks: typeof heldByCaller, c: QueueCount): Promise<number> {
  return countUpTo(
    db,
    tasks(db, c.projectId, c.stageId, c.email)
      .select(sql.lit(1).as('one'))
      .$if(c.except !== undefined, (q) => q.where('tasks.id', '<>', c.except as string))
      .$if(c.cap !== undefined, (q) => q.limit((c.cap as number) + 1))
      .as('counted'),
  );
}

/** The caller's tasks in a stage. */
export const countHeld = (db: Executor, c: QueueCount) => countTasks(db, heldByCaller, c);

/** The tasks of a stage /next could hand the caller. */
export const countFree = (db: Executor, c: QueueCount) => countTasks(db, freeForCaller, c);

/** What the caller finished in a stage since `since` (history entries: submits, decisions, skips), up to `cap + 1` when capped. */
export async function countDoneSince(db: Executor, c: QueueCount & { since: string }): Promise<number> {
  return countUpTo(
    db,
    db
      .selectFrom('task_history')
      .select(sql.lit(1).as('one'))
      .where('project_id', '=', c.projectId)
      .where('completed_at', '>=', c.since)
      .where('completed_by', '=', c.email)
      .where('stage_id', '=', c.stageId)
      .$if(c.cap !== undefined, (q) => q.limit((c.cap as number) + 1))
      .as('counted'),
  );
}

/** The stage each of these live tasks of the project rests in (missing ids are left out). */
export async function stagesOfTasks(trx: Executor, projectId: string, ids: readonly string[]) {
  if (!ids.length) return [];
  return trx
    .selectFrom('tasks')
    .select(['id', 'stage_id'])
    .where('project_id', '=', projectId)
    .where('deleted', '=', 0)
    .where('id', 'in', ids)
    .execute();
}

/** Sets (or clears) the assignee of these tasks. */
export async function setAssignee(
  trx: Executor,
  ids: readonly string[],
  change: { assignee: string | null; now: string; by: string },
): Promise<void> {
  await trx
    .updateTable('tasks')
    .set({ assignee: change.assignee, updated_at: change.now, updated_by: change.by })
    .where('id', 'in', ids)
    .execute();
}

/** Whether `email` may be given a project's tasks: a member of the project, or an owner or admin of its organization. */
export async function isAssignable(trx: Executor, projectId: string, orgId: string, email: string): Promise<boolean> {
  const member = await trx
    .selectFrom('project_members')
    .select('role')
    .where('project_id', '=', projectId)
    .where('email', '=', email)
    .executeTakeFirst();
  if (member) return true;
  const user = await trx
    .selectFrom('users')
    .select(['organization_id', 'org_role'])
    .where('email', '=', email)
    .executeTakeFirst();
  return user?.organization_id === orgId && (user.org_role === 'owner' || user.org_role === 'admin');
}
