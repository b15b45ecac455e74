import { taskLinks } from '../files/layers/brush-layer.js';
import { audit } from '../audit/audit.service.js';
import type { AppContext } from '../../context.js';
import { forbidden, invalidField, notFound } from '../../errors.js';
import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import type { TaskRow } from '../../store/schema.js';
import {
  claimTask,
  isAssignable,
  lockCallerTurn,
  setAssignee,
  stagesOfTasks,
} from '../../store/repositories/work-queue.repository.js';
import { stageById } from '../../workflow/graph.js';
import { can, type Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { cachedJson } from '../projects/project-view.js';
import { fullTaskView } from './task-move.js';
import { mayTake } from './work-access.js';
import { benchmarkTurn } from './benchmark-queue.service.js';

/*
 * Handing tasks out: /next (the caller's next task, claimed atomically) and a manager's
 * assignment of tasks to a person.
 */

/**
 * GET /project/{id}/next: the caller's next task in a stage (its own assigned task first, one a
 * reviewer sent back before the others, then the highest priority, then the oldest), assigned to the caller in one atomic statement so two
 * callers never get the same task. Tasks the caller skipped in the stage come only when nothing
 * else waits.
 */
export async function nextTask(ctx: AppContext, p: Principal, projectId: string, stageId: string | undefined) {
  const db = ctx.store.db;
  const { row, role } = await loadProject(db, p, projectId, 'read');
  // Read only: the parsed stages shared by every answer (parsing them was a quarter of /next's CPU).
  const stages = cachedJson<Stage[]>(row.stages, []);
  let candidates: Stage[];
  if (stageId !== undefined) {
    const stage = stageById(stages, stageId);
    if (!stage) throw invalidField('stageId', `no stage "${stageId}" in this project`);
    if (!mayTake(stage, role, p.email)) throw forbidden(`you may not take tasks from stage "${stageId}"`);
    candidates = [stage];
  } else {
    candidates = stages.filter((s) => mayTake(s, role, p.email));
  }
  let stopped: string | undefined;
  for (const stage of candidates) {
    // Managers hold the references: benchmarks are for everyone else who labels.
    const turn = can(role, 'manage') ? undefined : await benchmarkTurn(ctx, db, row, stage, p.email, stages);
    if (turn?.task) return { task: turn.task };
    stopped ??= turn?.reason;
    if (turn) continue;
    const task = await claimNext(ctx, row.id, stage, p.email);
    if (task) return { task: await fullTaskView(db, task, stages, taskLinks(ctx)) };
  }
  return stopped ? { task: null, reason: stopped } : { task: null };
}

async function claimNext(
  ctx: AppContext,
  projectId: string,
  stage: Stage,
  email: string,
): Promise<TaskRow | undefined> {
  const now = new Date(ctx.clock.now()).toISOString();
  // Tasks the caller skipped in this stage come last: first a pass that passes over them, then,
  // when nothing else waits, one that may hand one back.
  const claim = async (db: Executor, postgres: boolean) =>
    (await claimTask(db, postgres, { projectId, stageId: stage.id, email, now, passOverSkipped: true })) ??
    claimTask(db, postgres, { projectId, stageId: stage.id, email, now, passOverSkipped: false });
  if (ctx.store.engine === 'sqlite') return claim(ctx.store.db, false);
  // On PostgreSQL one person's /next calls take turns (a lock on the person and project, held to
  // commit): otherwise two calls at once each see that the caller holds nothing yet and each
  // take a task (SKIP LOCKED lets them pass each other), and in a consensus sub-stage each pick
  // a copy of one round. The second call then finds the first one's task and answers it.
  return ctx.store.db.transaction().execute(async (trx) => {
    await lockCallerTurn(trx, projectId, email);
    return claim(trx, true);
  });
}

/** POST /task/assign: sets (or clears, without `user`) the assignee of tasks sitting in `stage`. */
export async function assignTasks(
  ctx: AppContext,
  p: Principal,
  input: { project: string; tasks: string[]; stage: string; user?: string | undefined },
) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, input.project, 'import');
    const stage = stageById(cachedJson<Stage[]>(row.stages, []), input.stage);
    if (!stage) throw invalidField('stage', `no stage "${input.stage}" in this project`);
    const user = input.user?.trim().toLowerCase();
    if (user !== undefined) await assertAssignable(trx, row.id, row.organization_id, stage, user);
    const ids = [...new Set(input.tasks)];
    const found = await stagesOfTasks(trx, row.id, ids);
    ids.forEach((id, i) => {
      const t = found.find((f) => f.id === id);
      if (!t) throw invalidField(`tasks[${i}]`, 'no such task in this project');
      if (t.stage_id !== stage.id)
        throw invalidField(`tasks[${i}]`, `the task is in stage "${t.stage_id}", not "${stage.id}"`);
    });
    if (ids.length) {
      const now = new Date(ctx.clock.now()).toISOString();
      await setAssignee(trx, ids, { assignee: user ?? null, now, by: p.email });
      await audit(trx, ctx.clock, p, {
        operation: 'tasks.assign',
        targetType: 'stage',
        targetId: stage.id,
        projectId: row.id,
        fields: ['assignee'],
      });
    }
    return { modifiedCount: ids.length, assignee: user ?? null };
  });
}

async function assertAssignable(trx: Executor, projectId: string, orgId: string, stage: Stage, email: string) {
  const allowed = stage.assignedTo ?? [];
  if (allowed.length && !allowed.some((e) => e.toLowerCase() === email)) {
    throw invalidField('user', `stage "${stage.id}" is limited to its assignedTo list`);
  }
  if (!(await isAssignable(trx, projectId, orgId, email))) throw notFound(`project member ${email}`);
}
