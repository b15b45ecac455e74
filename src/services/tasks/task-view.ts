import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import { chunked } from '../../store/chunks.js';
import type { TaskForReader } from '../../store/repositories/task.repository.js';
import { batchLinksOf } from '../../store/repositories/asset.repository.js';
import { assetBriefs } from '../../store/repositories/task-history.repository.js';
import type { TaskRow } from '../../store/schema.js';
import { StoredJson } from '../../stored-json.js';
import { type BrushFrame, brushFramesOut } from '../files/layers/brush-frames.js';

/** The asset fields a task's view shows (and the editor's `hasSize`), as the task's read loads them. */
export type AssetBrief = NonNullable<TaskForReader['asset']>;

/** Assets and batch ids of a page of tasks: two queries, whatever the page size. */
export async function loadTaskExtras(
  db: Executor,
  tasks: readonly TaskRow[],
): Promise<{ assets: Map<string, AssetBrief>; batches: Map<string, string[]> }> {
  const assetIds = [...new Set(tasks.map((t) => t.asset_id))];
  const assets = new Map<string, AssetBrief>();
  const batches = new Map<string, string[]>();
  for (const ids of chunked(assetIds)) {
    const rows = await assetBriefs(db, ids);
    for (const r of rows) assets.set(r.id, r);
    const links = await batchLinksOf(db, ids);
    for (const l of links) {
      const list = batches.get(l.asset_id) ?? [];
      list.push(l.batch_id);
      batches.set(l.asset_id, list);
    }
  }
  return { assets, batches };
}

export interface TaskViewOptions {
  includeAnswer: boolean;
  stages: readonly Stage[];
  asset: AssetBrief | undefined;
  batches: string[];
  /** Signs a stored link afresh (files/layers/brush-layer.ts taskLinks): clients never see the stored one. */
  links: (stored: string | null) => string | null;
}

/** `{pct}` of an asset's metadata when it has one (a point cloud's sensors and cameras). */
function pctOf(metadata: string | null | undefined): { pct?: unknown } {
  if (!metadata || !metadata.includes('"pct"')) return {};
  try {
    const m = JSON.parse(metadata) as { pct?: unknown };
    return m.pct !== undefined && m.pct !== null ? { pct: m.pct } : {};
  } catch {
    return {};
  }
}

/** `{brushFrames}` of a video task with frame layers (files/layers/brush-frames.ts); {} otherwise. */
function brushFramesOf(row: TaskRow, opts: TaskViewOptions): { brushFrames?: BrushFrame[] } {
  const brushFrames = brushFramesOut(row, opts.asset?.metadata ?? null, opts.links);
  return brushFrames ? { brushFrames } : {};
}

/** The task record of DECISIONS section 4. */
export function taskView(row: TaskRow, opts: TaskViewOptions): Record<string, unknown> {
  const stage = opts.stages.find((s) => s.id === row.stage_id);
  const view: Record<string, unknown> = {
    _id: row.id,
    project: row.project_id,
    asset: {
      _id: row.asset_id,
      externalId: opts.asset?.external_id ?? row.external_id,
      data: opts.asset?.data ?? null,
      // Numeric width and height in the asset's metadata (their size buckets are set): the
      // editor measures an image that has none and fills it (PUT /v2/asset/{id}/size).
      hasSize: opts.asset ? opts.asset.width_bucket !== null && opts.asset.height_bucket !== null : false,
      // An asset made of several images: its pages, in order.
      ...(opts.asset?.dataset ? { dataset: JSON.parse(opts.asset.dataset) as unknown } : {}),
      // A point cloud's sensors and cameras with their calibration, for the 3D editor.
      ...pctOf(opts.asset?.metadata),
    },
    externalId: row.external_id,
    stage: row.stage_id,
    stageName: stage?.name ?? row.stage_id,
    stageType: stage?.type ?? null,
    status: row.status,
    assignee: row.assignee,
    batches: opts.batches,
    priority: row.priority,
    reviewStatus: row.review_status,
    duration: row.duration,
    totalDuration: row.total_duration,
    openIssuesCount: row.open_issues_count,
    isPreLabeled: row.is_pre_labeled === 1,
    isDraft: row.is_draft === 1,
    type: row.type,
    parentTask: row.parent_task_id,
    consensusScore: row.consensus_score,
    brushDataUrl: opts.links(row.brush_data_url),
    ...brushFramesOf(row, opts),
    medicalBrushDataUrl: opts.links(row.medical_brush_data_url),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
    completedAt: row.completed_at,
    completedBy: row.completed_by,
  };
  // Written by JSON.stringify after validation: answered as stored, not parsed and written again.
  if (opts.includeAnswer) view.answer = new StoredJson(row.answer);
  return view;
}

/** Keeps only the requested fields of a view (`_id` always stays). */
export function project(view: Record<string, unknown>, fields: readonly string[] | undefined): Record<string, unknown> {
  if (!fields || fields.length === 0) return view;
  const out: Record<string, unknown> = { _id: view._id };
  for (const f of fields) if (f in view) out[f] = view[f];
  return out;
}

export const TASK_VIEW_FIELDS = [
  '_id',
  'project',
  'asset',
  'externalId',
  'stage',
  'stageName',
  'stageType',
  'status',
  'assignee',
  'batches',
  'priority',
  'answer',
  'reviewStatus',
  'duration',
  'totalDuration',
  'openIssuesCount',
  'isPreLabeled',
  'isDraft',
  'type',
  'parentTask',
  'consensusScore',
  'brushDataUrl',
  'brushFrames',
  'medicalBrushDataUrl',
  'createdAt',
  'updatedAt',
  'updatedBy',
  'completedAt',
  'completedBy',
] as const;
