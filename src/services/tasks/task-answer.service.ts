import { taskLinks } from '../files/layers/brush-layer.js';
import { audit } from '../audit/audit.service.js';
import type { AppContext } from '../../context.js';
import { badRequest, forbidden, invalid, invalidField } from '../../errors.js';
import type { Executor } from '../../store/db.js';
import type { TaskRow } from '../../store/schema.js';
import { type AnswerInput, framesOfAsset, validateAnswer } from '../../workflow/answer.js';
import { pctRules } from '../../workflow/pct-answer.js';
import { isOverlapRule } from '../../shared/overlap.js';
import { saveTasks } from '../../store/repositories/task-move.repository.js';
import { can, type Principal } from '../../access.js';
import { projectSettings } from '../projects/project-view.js';
import { allowedExit, currentStage, fullTaskView, routingFor, takeExit } from './task-move.js';
import { loadTask } from './task.service.js';
import { demandWork, taskToWork } from './work-access.js';
import { findLiveAsset } from '../../store/repositories/asset-media.repository.js';
import { assetImageSize, checkBrushDataUrl, storeBrushLayer } from '../files/layers/brush-layer.js';
import { assetFrameTotal, type BrushFrame, savedBrushFrames } from '../files/layers/brush-frames.js';
import { assetVolumeSize, checkMedicalBrushDataUrl, storeVolumeLayer } from '../files/layers/medical-layer.js';
import { benchmarkToWork, workHandedOutBenchmark } from './benchmark-submit.service.js';

/*
 * A person's (or a plugin's) work on one task: saving an answer and its layers, submitting it out
 * of its stage, a reviewer's decision, a skip. Which exits a stage allows is its behaviour's
 * (workflow/behaviors); here are the checks of who may and of what is sent.
 */

export interface AnnotateInput {
  answer?: AnswerInput | undefined;
  brushDataUrl?: string | undefined;
  /** A video's layers of the frames it names (brush-frames.ts). */
  brushFrames?: BrushFrame[] | undefined;
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
  const brushOnly =
    input.brushDataUrl !== undefined || input.brushFrames !== undefined || input.medicalBrushDataUrl !== undefined;
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
      const layers = {
        brushDataUrl: input.brushDataUrl,
        medicalBrushDataUrl: input.medicalBrushDataUrl,
        linkBases: opts.linkBases,
      };
      const handedOut = await workHandedOutBenchmark(ctx, trx, p, taskId, input.answer, opts.nextStage, layers);
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
    const brush = await brushLayers(ctx, task, org, input, assetMetadata ?? null, opts.linkBases);
    const medical = await layerOf(ctx, task, org, input, 'medicalBrushDataUrl', assetMetadata ?? null, opts.linkBases);
    const now = run.env.now();
    const row: TaskRow = {
      ...task,
      answer: JSON.stringify(checked.value),
      ...brush,
      medical_brush_data_url: medical,
      duration: task.duration + (input.duration ?? 0),
      total_duration: task.total_duration + (input.duration ?? 0),
      updated_at: now,
      updated_by: p.email,
    };
    if (!opts.nextStage) {
      // Saved, not submitted: a draft until the task moves on (routing clears the flag).
      const draft = { ...row, is_draft: 1 };
      await saveTasks(trx, [{ after: draft }]);
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

/** The brush layers to store: a video's per frame (brush-frames.ts), else the task's one layer. */
async function brushLayers(
  ctx: AppContext,
  task: TaskRow,
  orgId: string,
  input: AnnotateInput,
  metadata: string | null,
  bases: string[] | undefined,
): Promise<Pick<TaskRow, 'brush_data_url' | 'brush_frames'>> {
  const frameTotal = assetFrameTotal(metadata);
  if (frameTotal === undefined) {
    if (input.brushFrames !== undefined) {
      throw invalidField('brushFrames', "is for videos: the task's asset has no metadata.frameTotal");
    }
    const one = await layerOf(ctx, task, orgId, input, 'brushDataUrl', metadata, bases);
    return { brush_data_url: one, brush_frames: task.brush_frames };
  }
  if (input.brushFrames === undefined && input.brushDataUrl === undefined) {
    return { brush_data_url: task.brush_data_url, brush_frames: task.brush_frames };
  }
  const where = { projectId: task.project_id, orgId, image: assetImageSize(metadata), frameTotal, metadata };
  return savedBrushFrames(ctx, task, input, where, bases);
}

/** A layer to store (brush or voxel): unchanged when not sent, removed by "", else a checked link. */
async function layerOf(
  ctx: AppContext,
  task: TaskRow,
  orgId: string,
  input: AnnotateInput,
  field: LayerField,
  metadata: string | null,
  bases: string[] | undefined,
): Promise<string | null> {
  const sent = input[field];
  if (sent === undefined) return field === 'brushDataUrl' ? task.brush_data_url : task.medical_brush_data_url;
  if (sent === '') return null;
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
  // A benchmark handed to the caller is theirs to paint, though it is assigned to nobody.
  const { task, asset } = (await benchmarkToWork(ctx, p, taskId)) ?? (await taskToWork(ctx, p, taskId));
  const metadata = asset?.metadata ?? null;
  const at = { projectId: task.project_id, taskId: task.id };
  return field === 'brushDataUrl'
    ? storeBrushLayer(ctx, { ...at, image: assetImageSize(metadata) }, body, base)
    : storeVolumeLayer(ctx, { ...at, volume: assetVolumeSize(metadata) }, body, base);
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
