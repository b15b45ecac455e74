import type { Stage } from '../../schemas/stage.js';
import type { PayloadStageHistoryEntry, WebhookPayload } from '../../schemas/webhook-payload.js';
import type { Executor } from '../../store/db.js';
import type { ProjectRow, TaskRow } from '../../store/schema.js';
import type { WebhookDeliveryJob } from '../../jobs/kinds.js';
import type { TaskAnswer } from '../../workflow/types.js';
import { parseJson } from '../projects/project-view.js';
import { type ProjectView, ProjectViews } from './webhook-project-views.js';

/** Everything a delivery sends, read from the store when the attempt starts. */
export interface DeliverySubject {
  task: DeliveryTask;
  project: ProjectRow;
  /** The project's stages and ontology, parsed once per version of the project. */
  view: ProjectView;
  stage: Stage;
  asset: { id: string; external_id: string; data: string; metadata: string | null };
  batches: { id: string; name: string }[];
  history: HistoryMeta[];
}

interface HistoryMeta {
  id: string;
  task_id: string;
  stage_id: string;
  duration: number;
  completed_at: string;
  completed_by: string | null;
  is_skipped: number;
  consensus_id: string | null;
  trigger: string;
}

export type LoadedSubject =
  { kind: 'ready'; subject: DeliverySubject } | { kind: 'dropped'; reason: string; task?: DeliveryTask };

/** The task columns a delivery reads: its visit, and what the payload carries. */
export const TASK_COLUMNS = [
  'id',
  'project_id',
  'asset_id',
  'external_id',
  'stage_id',
  'stage_entered_at',
  'deleted',
  'type',
  'updated_at',
  'updated_by',
  'duration',
  'total_duration',
  'answer',
  'brush_data_url',
  'medical_brush_data_url',
] as const;

export type DeliveryTask = Pick<TaskRow, (typeof TASK_COLUMNS)[number]>;

/** The history columns a delivery carries (no answers). */
export const HISTORY_META = [
  'id',
  'task_id',
  'stage_id',
  'duration',
  'completed_at',
  'completed_by',
  'is_skipped',
  'consensus_id',
  'trigger',
] as const;

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const list = map.get(key(row));
    if (list) list.push(row);
    else map.set(key(row), [row]);
  }
  return map;
}

/**
 * Reads the tasks of many deliveries and what their payloads need, in one query per table
 * whatever their number. A task no longer waiting in the stage on the same visit is not sent:
 * its delivery is dropped (a later visit queued its own).
 */
export async function loadSubjects(
  db: Executor,
  jobs: readonly WebhookDeliveryJob[],
  views: ProjectViews = new ProjectViews(),
): Promise<LoadedSubject[]> {
  const ids = [...new Set(jobs.map((j) => j.taskId))];
  const tasks = new Map(
    // Named columns, not all: a row costs by the column in the driver, and this runs per delivery.
    (await db.selectFrom('tasks').select(TASK_COLUMNS).where('id', 'in', ids).execute()).map((t) => [t.id, t]),
  );
  const live = [...tasks.values()].filter((t) => t.deleted === 0);
  const assetIds = [...new Set(live.map((t) => t.asset_id))];
  const projectIds = [...new Set(live.map((t) => t.project_id))];
  const none = [''];
  const [projects, assets, links, history] = await Promise.all([
    db
      .selectFrom('projects')
      .selectAll()
      .where('id', 'in', projectIds.length ? projectIds : none)
      .execute(),
    db
      .selectFrom('assets')
      .select(['id', 'external_id', 'data', 'metadata'])
      .where('id', 'in', assetIds.length ? assetIds : none)
      .execute(),
    db
      .selectFrom('asset_batches as ab')
      .innerJoin('batches as b', 'b.id', 'ab.batch_id')
      .select(['ab.asset_id', 'b.id', 'b.name'])
      .where('ab.asset_id', 'in', assetIds.length ? assetIds : none)
      .orderBy('b.created_at')
      .orderBy('b.id')
      .execute(),
    db
      .selectFrom('task_history')
      // Metadata only: the payload's stage history carries no label contents.
      .select([...HISTORY_META])
      .where('task_id', 'in', live.length ? live.map((t) => t.id) : none)
      .orderBy('completed_at')
      .orderBy('id')
      .execute(),
  ]);
  const projectById = new Map(projects.map((p) => [p.id, { row: p, view: views.of(p) }]));
  const assetById = new Map(assets.map((a) => [a.id, a]));
  const batchesOf = groupBy(links, (l) => l.asset_id);
  const historyOf = groupBy(history, (h) => h.task_id);
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
    const batches = (batchesOf.get(asset.id) ?? []).map((b) => ({ id: b.id, name: b.name }));
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

/** The contract's payload (api-v2.md, Events): batches as ids with names beside them. */
export function buildPayload(s: DeliverySubject): WebhookPayload {
  const { task, project, stage, asset } = s;
  const { categorySchema, toolTitles } = s.view;
  const answer = parseJson<TaskAnswer>(task.answer, { tools: [], classifications: [], relations: [] });
  return {
    projectId: project.id,
    categorySchema,
    asset: asset.data,
    assetId: asset.id,
    // Annotary assets are single files: no multi-file datasets or overlays (yet).
    dataset: [],
    overlay: [],
    externalId: asset.external_id,
    metadata: parseJson<Record<string, number>>(asset.metadata, {}),
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
      brushDataUrl: task.brush_data_url,
      medicalBrushDataUrl: task.medical_brush_data_url,
    },
  };
}
