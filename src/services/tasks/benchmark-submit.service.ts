import type { AppContext } from '../../context.js';
import { assetImageSize, checkBrushDataUrl, taskLinks } from '../files/layers/brush-layer.js';
import { invalid } from '../../errors.js';
import { newId } from '../../ids.js';
import type { CategorySchema } from '../../schemas/category-schema.js';
import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import {
  deleteHandout,
  findHandoutOfTask,
  insertSubmission,
} from '../../store/repositories/benchmark-queue.repository.js';
import { findReference } from '../../store/repositories/benchmark.repository.js';
import { existingTask } from '../../store/repositories/row-by-id.repository.js';
import { type AnswerInput, validateAnswer } from '../../workflow/answer.js';
import { scoreBenchmark } from '../../workflow/consensus/benchmark-score.js';
import { lastFrameToCompare } from '../../workflow/consensus/score.js';
import { videoFrameTotal } from '../../shared/tracks.js';
import { EMPTY_ANSWER, type TaskAnswer } from '../../workflow/types.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { parseJson } from '../../stored-json.js';
import { brushLayerReader, fullTaskView } from './task-move.js';
import { asHandedOut } from './benchmark-queue.service.js';
import { findLiveAsset } from '../../store/repositories/asset-media.repository.js';
import { assetVolumeSize, checkMedicalBrushDataUrl, readVolumeLayer } from '../files/layers/medical-layer.js';

/** The layers a benchmark answer may carry beside its answer. */
export interface HandedOutLayers {
  brushDataUrl?: string | undefined;
  medicalBrushDataUrl?: string | undefined;
  linkBases?: string[] | undefined;
}

/**
 * /annotate on the benchmark /next handed the caller: a save answers the task with the answer
 * (benchmark drafts are not kept); a submit scores the answer against the reference, keeps it as
 * the caller's benchmark submission and frees the caller for their next task. The benchmark task
 * itself neither moves nor changes. A brush layer (`brushDataUrl`) or voxel layer
 * (`medicalBrushDataUrl`) sent is checked as annotate checks it and scored per class against the
 * reference's. On a video or point-cloud sequence objects are scored as tracks. Undefined when
 * the caller was not handed this task.
 */
export async function workHandedOutBenchmark(
  ctx: AppContext,
  trx: Executor,
  p: Principal,
  taskId: string,
  input: AnswerInput | undefined,
  submit: boolean,
  layers: HandedOutLayers = {},
): Promise<Record<string, unknown> | undefined> {
  const handout = await findHandoutOfTask(trx, taskId, p.email);
  if (!handout) return undefined;
  const { row } = await loadProject(trx, p, handout.project_id, 'read');
  const task = await existingTask(trx, taskId);
  const stages = parseJson<Stage[]>(row.stages, []);
  const stage = stages.find((s) => s.id === handout.stage_id);
  const schema = parseJson<CategorySchema>(row.category_schema, { tools: [], classifications: [], relations: [] });
  const checked = validateAnswer(input ?? EMPTY_ANSWER, schema, { submit });
  if (checked.errors.length) throw invalid(checked.errors);
  const shown = { ...asHandedOut(task, stage ?? { id: handout.stage_id, type: 'Label' }, p.email) };
  shown.answer = JSON.stringify(checked.value);
  const asset = await findLiveAsset(trx, task.asset_id);
  const sentBrush = layers.brushDataUrl || null;
  const brush = sentBrush
    ? await checkBrushDataUrl(
        ctx,
        'brushDataUrl',
        sentBrush,
        { projectId: row.id, orgId: row.organization_id, image: assetImageSize(asset?.metadata ?? null) },
        layers.linkBases,
      )
    : null;
  const sent = layers.medicalBrushDataUrl || null;
  const medical = sent
    ? await checkMedicalBrushDataUrl(
        ctx,
        'medicalBrushDataUrl',
        sent,
        {
          projectId: row.id,
          orgId: row.organization_id,
          volume: assetVolumeSize(asset?.metadata ?? null),
        },
        layers.linkBases,
      )
    : null;
  // The layers sent are shown back; the task's own are the reference's and never shown.
  shown.brush_data_url = brush;
  shown.medical_brush_data_url = medical;
  if (submit) {
    const reference = await findReference(trx, taskId);
    const expected = reference ? (JSON.parse(reference.answer) as TaskAnswer) : EMPTY_ANSWER;
    const referenceLayer = reference?.medical_brush_data_url ?? null;
    const voxels =
      medical || referenceLayer
        ? { answer: await readVolumeLayer(ctx, medical), reference: await readVolumeLayer(ctx, referenceLayer) }
        : {};
    const readBrush = brushLayerReader(ctx, schema);
    const brushes =
      brush || reference?.brush_data_url
        ? { answer: await readBrush(brush), reference: await readBrush(reference?.brush_data_url ?? null) }
        : {};
    const lastFrame = lastFrameToCompare(asset ? videoFrameTotal(asset) : undefined, [checked.value, expected]);
    const scored = scoreBenchmark(checked.value, expected, schema, voxels, brushes, lastFrame);
    const now = ctx.clock.now();
    await insertSubmission(trx, {
      id: newId(now),
      project_id: row.id,
      task_id: taskId,
      labeler: p.email,
      answer: shown.answer,
      score: scored.score,
      detail: JSON.stringify(scored.items),
      created_at: new Date(now).toISOString(),
      medical_brush_data_url: medical,
      brush_data_url: brush,
    });
    await deleteHandout(trx, row.id, p.email);
  }
  return fullTaskView(trx, shown, stages, taskLinks(ctx));
}

/** The benchmark task handed to the caller, with its asset; undefined when they were not handed it. */
export async function benchmarkToWork(ctx: AppContext, p: Principal, taskId: string) {
  const handout = await findHandoutOfTask(ctx.store.db, taskId, p.email);
  if (!handout) return undefined;
  await loadProject(ctx.store.db, p, handout.project_id, 'read');
  const task = await existingTask(ctx.store.db, taskId);
  return { task, asset: await findLiveAsset(ctx.store.db, task.asset_id) };
}
