import { type ExpressionBuilder, sql } from 'kysely';
import { taskLinks } from './brush-layer.js';
import { audit } from '../audit/audit.service.js';
import type { AppContext } from '../../context.js';
import { badRequest, forbidden, invalid, invalidField, notFound } from '../../errors.js';
import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import type { Database, TaskRow } from '../../store/schema.js';
import { type AnswerInput, framesOfAsset, validateAnswer } from '../../workflow/answer.js';
import { pctRules } from '../../workflow/pct-answer.js';
import { isOverlapRule } from '../../shared/overlap.js';
import { stageById } from '../../workflow/graph.js';
import { saveTask } from '../../workflow/routing.js';
import { can, canWorkStage, type Principal, type ProjectRole } from '../identity/access.js';
import { loadProject } from '../identity/project-access.js';
import { cachedJson, projectSettings } from '../projects/project-view.js';
import { allowedExit, currentStage, fullTaskView, routingFor, takeExit } from './task-move.js';
import { loadTask } from './task.service.js';
import { findLiveAsset } from '../../store/repositories/asset-media.repository.js';
import { assetImageSize, checkBrushDataUrl, storeBrushLayer } from './brush-layer.js';
import { assetVolumeSize, checkMedicalBrushDataUrl, storeVolumeLayer } from './medical-layer.js';
import { benchmarkTurn } from '../quality/benchmark-queue.service.js';
import { workHandedOutBenchmark } from '../quality/benchmark-submit.service.js';

/** Labelers work only tasks assigned to them; Reviewers and up any task of a stage they may work. */
function demandWork(role: ProjectRole, p: Principal, stage: Stage, task: TaskRow): void {
  if (!canWorkStage(role, stage.type)) throw forbidden(`your role cannot work ${stage.type} stages`);
  if (!can(role, 'review') && task.assignee !== p.email) throw forbidden('this task is not assigned to you');
}

export interface AnnotateInput {
  answer?: AnswerInput | undefined;
  brushDataUrl?: string | undefined;
  medicalBrushDataUrl?: string | undefined;
  duration?: number | undefined;
}

/**
 * POST /annotate/{taskId} (and GET with a body): replaces the answer in any stage; with
 * `nextStage` also submits the task out of its stage.
 */
export async function annotate(
  ctx: AppContext,
  p: Principal,
  taskId: string,
  input: AnnotateInput,
  opts: { nextStage: boolean; isPlugin: boolean; linkBases?: string[] | undefined },
) {
  // A body without an answer used to save an empty one: a client that forgot the field (or sent
  // only `duration`) erased the work. Clearing is explicit (`answer: {}`); a brush URL alone
  // keeps the saved answer.
  const brushOnly = input.brushDataUrl !== undefined || input.medicalBrushDataUrl !== undefined;
  if (input.answer === undefined && !brushOnly) {
    throw invalidField('answer', 'is required; send "answer": {} to clear the saved answer');
  }
  // One audit record a saved or submitted answer, named by the body's fields (never their values).
  const fields = Object.keys(input).filter((k) => input[k as keyof AnnotateInput] !== undefined);
  const record = (trx: Executor, projectId: string) =>
    audit(trx, ctx.clock, p, {
      operation: opts.nextStage ? 'task.submit' : 'task.annotate',
      targetType: 'task',
      targetId: taskId,
      projectId,
      fields,
    });
  return ctx.store.db.transaction().execute(async (trx) => {
    if (!opts.isPlugin) {
      const handedOut = await workHandedOutBenchmark(ctx, trx, p, taskId, input.answer, opts.nextStage);
      // A benchmark's draft is only shown back, never stored: a submission is the change.
      if (handedOut && opts.nextStage) await record(trx, String(handedOut.project));
      if (handedOut) return handedOut;
    }
    const { task, project } = await loadTask(trx, p, taskId);
    const run = routingFor(trx, ctx, project.row, p.email);
    const stage = currentStage(run, task);
    if (opts.isPlugin) {
      if (!can(project.role, 'import')) throw forbidden('plugin answers need the Lead or Manager role');
    } else demandWork(project.role, p, stage, task);
    const answer = input.answer ?? (JSON.parse(task.answer) as AnswerInput);
    const assetMetadata = (await findLiveAsset(trx, task.asset_id))?.metadata;
    const frames = framesOfAsset(assetMetadata);
    const pct = pctRules(project.row.type, project.row.pct_config, assetMetadata);
    const overlap = run.env.project.settings.segmentationOverlap;
    const checked = validateAnswer(answer, run.env.project.categorySchema, {
      submit: opts.nextStage,
      frames,
      pct,
      overlap: isOverlapRule(overlap) ? overlap : undefined,
    });
    if (checked.errors.length) throw invalid(checked.errors);
    const org = project.row.organization_id;
    const brush = await layerOf(ctx, trx, task, org, input, 'brushDataUrl', opts.linkBases);
    const medical = await layerOf(ctx, trx, task, org, input, 'medicalBrushDataUrl', opts.linkBases);
    const now = run.env.now();
    const row: TaskRow = {
      ...task,
      answer: JSON.stringify(checked.value),
      brush_data_url: brush,
      medical_brush_data_url: medical,
      duration: task.duration + (input.duration ?? 0),
      total_duration: task.total_duration + (input.duration ?? 0),
      updated_at: now,
      updated_by: p.email,
    };
    if (!opts.nextStage) {
      // Saved, not submitted: a draft until the task moves on (routing clears the flag).
      const draft = { ...row, is_draft: 1 };
      await saveTask(trx, draft);
      await record(trx, project.row.id);
      return fullTaskView(trx, draft, run.env.project.stages, taskLinks(ctx));
    }
    const exit = allowedExit(stage, { kind: 'submit', byPlugin: opts.isPlugin });
    const moved = await takeExit(run, trx, row, stage, exit);
    await record(trx, project.row.id);
    return fullTaskView(trx, moved, run.env.project.stages, taskLinks(ctx));
  });
}

type LayerField = 'brushDataUrl' | 'medicalBrushDataUrl';

/** A layer to store (brush or voxel): unchanged when not sent, removed by "", else a checked link. */
async function layerOf(
  ctx: AppContext,
  trx: Executor,
  task: TaskRow,
  orgId: string,
  input: AnnotateInput,
  field: LayerField,
  bases: string[] | undefined,
): Promise<string | null> {
  const sent = input[field];
  if (sent === undefined) return field === 'brushDataUrl' ? task.brush_data_url : task.medical_brush_data_url;
  if (sent === '') return null;
  const metadata = (await findLiveAsset(trx, task.asset_id))?.metadata ?? null;
  const at = { projectId: task.project_id, orgId };
  return field === 'brushDataUrl'
    ? checkBrushDataUrl(ctx, field, sent, { ...at, image: assetImageSize(metadata) }, bases)
    : checkMedicalBrushDataUrl(ctx, field, sent, { ...at, volume: assetVolumeSize(metadata) }, bases);
}

/**
 * POST /task/{taskId}/brush (a PNG body) and POST /task/{taskId}/medical-brush (a `.seg.nrrd`):
 * stores the layer of the task, for whoever may annotate it, and answers its link (saved by a
 * later POST /annotate/{taskId}).
 */
export async function uploadLayer(
  ctx: AppContext,
  p: Principal,
  taskId: string,
  body: Buffer,
  base: string,
  field: LayerField,
): Promise<{ brushDataUrl: string } | { medicalBrushDataUrl: string }> {
  const { task, asset } = await taskToWork(ctx, p, taskId);
  const metadata = asset?.metadata ?? null;
  const at = { projectId: task.project_id, taskId: task.id };
  return field === 'brushDataUrl'
    ? storeBrushLayer(ctx, { ...at, image: assetImageSize(metadata) }, body, base)
    : storeVolumeLayer(ctx, { ...at, volume: assetVolumeSize(metadata) }, body, base);
}

/** A task the caller may annotate now (else 403, or 404 when they cannot see it), with its asset. */
export async function taskToWork(ctx: AppContext, p: Principal, taskId: string) {
  const { task, project } = await loadTask(ctx.store.db, p, taskId);
  const run = routingFor(ctx.store.db, ctx, project.row, p.email);
  demandWork(project.role, p, currentStage(run, task), task);
  const asset = await findLiveAsset(ctx.store.db, task.asset_id);
  return { task, project, asset };
}

/** POST /review/{taskId}: Accepted leaves by next[0], Rejected by next[1]. */
export async function review(ctx: AppContext, p: Principal, taskId: string, reviewStatus: 'Accepted' | 'Rejected') {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { task, project } = await loadTask(trx, p, taskId);
    const run = routingFor(trx, ctx, project.row, p.email);
    const stage = currentStage(run, task);
    const exit = allowedExit(stage, { kind: 'review', decision: reviewStatus });
    demandWork(project.role, p, stage, task);
    const row = { ...task, updated_at: run.env.now(), updated_by: p.email };
    const moved = await takeExit(run, trx, row, stage, exit);
    await audit(trx, ctx.clock, p, {
      operation: 'task.review',
      targetType: 'task',
      targetId: task.id,
      projectId: project.row.id,
      fields: ['reviewStatus'],
    });
    return fullTaskView(trx, moved, run.env.project.stages, taskLinks(ctx));
  });
}

/**
 * POST /task/{taskId}/skip (an extension: the contract has the flags, not the operation). The
 * holder of a task in a Label stage (consensus copies included) passes it over: the task stays in
 * its stage, a history entry with `isSkipped` and trigger `skip` records who skipped it (duration
 * 0: the time stays on the task until it is submitted), and with `unassignSkippedTask` the task is
 * unassigned so others can take it. `/next` then hands the skipper other tasks first.
 */
export async function skip(ctx: AppContext, p: Principal, taskId: string) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { task, project } = await loadTask(trx, p, taskId);
    const settings = projectSettings(project.row);
    if (settings.taskSkipEnabled !== true) throw badRequest('skipping is off for this project');
    const run = routingFor(trx, ctx, project.row, p.email);
    const stage = currentStage(run, task);
    const exit = allowedExit(stage, { kind: 'skip' });
    if (task.assignee !== p.email) throw forbidden('only the person the task is assigned to can skip it');
    const now = run.env.now();
    const row: TaskRow = {
      ...task,
      assignee: settings.unassignSkippedTask === true ? null : task.assignee,
      updated_at: now,
      updated_by: p.email,
    };
    await takeExit(run, trx, row, stage, exit);
    await audit(trx, ctx.clock, p, {
      operation: 'task.skip',
      targetType: 'task',
      targetId: task.id,
      projectId: project.row.id,
      fields: row.assignee === task.assignee ? [] : ['assignee'],
    });
    return fullTaskView(trx, row, run.env.project.stages, taskLinks(ctx));
  });
}

export function mayTake(stage: Stage, role: ProjectRole, email: string): boolean {
  if (stage.type !== 'Label' && stage.type !== 'Review') return false;
  if (!canWorkStage(role, stage.type)) return false;
  const allowed = stage.assignedTo ?? [];
  return allowed.length === 0 || allowed.some((e) => e.toLowerCase() === email);
}

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
    (await claimIn(db, postgres, projectId, stage.id, email, now, true)) ??
    claimIn(db, postgres, projectId, stage.id, email, now, false);
  if (ctx.store.engine === 'sqlite') return claim(ctx.store.db, false);
  // On PostgreSQL one person's /next calls take turns (a lock on the person and project, held to
  // commit): otherwise two calls at once each see that the caller holds nothing yet and each
  // take a task (SKIP LOCKED lets them pass each other), and in a consensus sub-stage each pick
  // a copy of one round. The second call then finds the first one's task and answers it.
  return ctx.store.db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`next:${projectId}:${email}`}, 0))`.execute(trx);
    return claim(trx, true);
  });
}

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

async function claimIn(
  db: Executor,
  postgres: boolean,
  projectId: string,
  stageId: string,
  email: string,
  now: string,
  passOverSkipped: boolean,
): Promise<TaskRow | undefined> {
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
    .$if(passOverSkipped, (q) => q.where(notSkippedByCaller))
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
    .$if(passOverSkipped, (q) => q.where(notSkippedByCaller))
    .orderBy('priority', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .limit(1);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const claimed = await db
      .updateTable('tasks')
      .set({ assignee: email, updated_at: now })
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
    const found = ids.length
      ? await trx
          .selectFrom('tasks')
          .select(['id', 'stage_id'])
          .where('project_id', '=', row.id)
          .where('deleted', '=', 0)
          .where('id', 'in', ids)
          .execute()
      : [];
    ids.forEach((id, i) => {
      const t = found.find((f) => f.id === id);
      if (!t) throw invalidField(`tasks[${i}]`, 'no such task in this project');
      if (t.stage_id !== stage.id)
        throw invalidField(`tasks[${i}]`, `the task is in stage "${t.stage_id}", not "${stage.id}"`);
    });
    if (ids.length) {
      await trx
        .updateTable('tasks')
        .set({ assignee: user ?? null, updated_at: new Date(ctx.clock.now()).toISOString(), updated_by: p.email })
        .where('id', 'in', ids)
        .execute();
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
  const member = await trx
    .selectFrom('project_members')
    .select('role')
    .where('project_id', '=', projectId)
    .where('email', '=', email)
    .executeTakeFirst();
  const user = await trx
    .selectFrom('users')
    .select(['organization_id', 'org_role'])
    .where('email', '=', email)
    .executeTakeFirst();
  const orgAdmin = user?.organization_id === orgId && (user.org_role === 'owner' || user.org_role === 'admin');
  if (!member && !orgAdmin) throw notFound(`project member ${email}`);
}
