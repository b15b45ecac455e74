import type { Stage } from '../../schemas/stage.js';
import type { PayloadStageHistoryEntry, WebhookPayload } from '../../schemas/webhook-payload.js';
import type { Executor } from '../../store/db.js';
import type { ProjectRow } from '../../store/schema.js';
import type { WebhookDeliveryJob } from '../../jobs/kinds.js';
import type { TaskAnswer } from '../../workflow/types.js';
import { parseJson } from '../../stored-json.js';
import { withoutPatientTags } from '../../shared/patient-tags.js';
import { brushFramesOut } from '../files/layers/brush-frames.js';
import { type ProjectView, ProjectViews } from './webhook-project-views.js';
import {
  type DeliveryTask,
  type HistoryMeta,
  readSubjectRows,
} from '../../store/repositories/webhook-subject.repository.js';

/** Everything a delivery sends, read from the store when the attempt starts. */
export interface DeliverySubject {
  task: DeliveryTask;
  project: ProjectRow;
  /** The project's stages and ontology, parsed once per version of the project. */
  view: ProjectView;
  stage: Stage;
  asset: { id: string; external_id: string; data: string; metadata: string | null; dataset: string | null };
  batches: { id: string; name: string }[];
  history: HistoryMeta[];
}

export type { DeliveryTask, HistoryMeta };

export type LoadedSubject =
  { kind: 'ready'; subject: DeliverySubject } | { kind: 'dropped'; reason: string; task?: DeliveryTask };

export { HISTORY_META, TASK_COLUMNS } from '../../store/repositories/webhook-subject.repository.js';

/**
 * Reads the tasks of many deliveries and what their payloads need, in one query per table
 * whatever their number (on PostgreSQL, two at once: webhook-subject-reads.ts). A task no longer
 * waiting in the stage on the same visit is not sent: its delivery is dropped (a later visit
 * queued its own).
 */
export async function loadSubjects(
  db: Executor,
  jobs: readonly WebhookDeliveryJob[],
  views: ProjectViews = new ProjectViews(),
): Promise<LoadedSubject[]> {
  const ids = [...new Set(jobs.map((j) => j.taskId))];
  const rows = await readSubjectRows(db, ids);
  const tasks = new Map(rows.tasks.map((t) => [t.id, t]));
  const projectById = new Map(rows.projects.map((p) => [p.id, { row: p, view: views.of(p) }]));
  const { assetById, batchesOf, historyOf } = rows;
  return jobs.map((job): LoadedSubject => {
    const task = tasks.get(job.taskId);
    if (!task || task.deleted === 1)
      return { kind: 'dropped', reason: 'the task was deleted', ...(task ? { task } : {}) };
    if (task.stage_id !== job.stageId || task.stage_entered_at !== job.enteredAt) {
      return { kind: 'dropped', reason: 'the task is no longer waiting in this stage', task };
    }
    const project = projectById.get(task.project_id);
    if (!project || project.row.deleted === 1) return { kind: 'dropped', reason: 'the project was deleted', task };
    const stage = project.view.stages.find((x) => x.id === job.stageId);
    if (!stage || stage.type !== 'Webhook' || !stage.webhook) {
      return { kind: 'dropped', reason: 'the stage is no longer a Webhook stage', task };
    }
    const asset = assetById.get(task.asset_id);
    if (!asset) return { kind: 'dropped', reason: 'the asset was deleted', task };
    const batches = batchesOf.get(asset.id) ?? [];
    return {
      kind: 'ready',
      subject: {
        task,
        project: project.row,
        view: project.view,
        stage,
        asset,
        batches,
        history: historyOf.get(task.id) ?? [],
      },
    };
  });
}

/** Triggers where a person handed the task on: their e-mail is the entry's `submittedBy`. */
const SUBMITTING = new Set(['submit', 'review', 'plugin', 'forward']);

function stageHistory(history: HistoryMeta[]): PayloadStageHistoryEntry[] {
  return history.map((h) => ({
    stageId: h.stage_id,
    duration: h.duration,
    // Annotary does not measure idle time yet.
    idleDuration: 0,
    completedAt: h.completed_at,
    taskHistory: h.id,
    completedBy: h.completed_by,
    submittedBy: SUBMITTING.has(h.trigger) ? h.completed_by : null,
    consensusId: h.consensus_id,
    isSkipped: h.is_skipped === 1,
    _id: h.id,
  }));
}

/**
 * Tool objects as stored, with what the contract's element always has: the ontology's title
 * when the object has none, and an empty `classifications` list when it has no nested answers.
 */
function payloadTools(tools: Record<string, unknown>[], titles: Map<string, string>): Record<string, unknown>[] {
  return tools.map((o) => ({
    ...o,
    classifications: Array.isArray(o.classifications) ? o.classifications : [],
    title: typeof o.title === 'string' ? o.title : (titles.get(String(o.schemaId)) ?? ''),
  }));
}

/**
 * The contract's payload (api-v2.md, Events): batches as ids with names beside them; the brush
 * links signed afresh by `links` (a day's life: files/layers/brush-layer.ts SHARED_LINK_SECONDS).
 */
export function buildPayload(s: DeliverySubject, links: (stored: string | null) => string | null): WebhookPayload {
  const { task, project, stage, asset } = s;
  const { categorySchema, toolTitles } = s.view;
  const answer = parseJson<TaskAnswer>(task.answer, { tools: [], classifications: [], relations: [] });
  const brushFrames = brushFramesOut(task, asset.metadata, links);
  return {
    projectId: project.id,
    categorySchema,
    asset: asset.data,
    assetId: asset.id,
    // The pages of an asset made of several images; overlays are not kept.
    dataset: parseJson<string[]>(asset.dataset, []),
    overlay: [],
    externalId: asset.external_id,
    // A patient's DICOM tags go out only when the project says so (shared/patient-tags.ts).
    metadata: parseJson<Record<string, number>>(
      parseJson<{ patientTagsExported?: unknown }>(project.settings, {}).patientTagsExported === true
        ? asset.metadata
        : withoutPatientTags(asset.metadata),
      {},
    ),
    batches: s.batches.map((b) => b.id),
    batchNames: s.batches.map((b) => b.name),
    task: {
      type: task.type,
      taskId: task.id,
      stage: stage.id,
      stageId: stage.id,
      stageName: stage.name ?? stage.id,
      updatedAt: task.updated_at,
      updatedBy: task.updated_by,
      duration: task.duration,
      idleDuration: 0,
      totalDuration: task.total_duration,
      totalIdleDuration: 0,
      tools: payloadTools(answer.tools, toolTitles) as WebhookPayload['task']['tools'],
      classifications: answer.classifications,
      relations: answer.relations,
      stageHistory: stageHistory(s.history),
      brushDataUrl: links(task.brush_data_url),
      ...(brushFrames ? { brushFrames } : {}),
      medicalBrushDataUrl: links(task.medical_brush_data_url),
    },
  };
}
