import type { Executor } from '../db.js';

/*
 * The reads and writes of a label import: the project's assets to match files against, the
 * tasks of the matched assets (locked on PostgreSQL so a forward cannot move them out of Start
 * under the import), and the answers written onto them.
 */

export interface IndexedAsset {
  id: string;
  external_id: string;
  /** the asset file's address (its last path segment is the file's name) */
  data: string;
  metadata: string | null;
}

/** Every live asset of the project: id, external id, file address and metadata (for its size). */
export function projectAssets(db: Executor, projectId: string): Promise<IndexedAsset[]> {
  return db
    .selectFrom('assets')
    .select(['id', 'external_id', 'data', 'metadata'])
    .where('project_id', '=', projectId)
    .where('deleted', '=', 0)
    .execute();
}

export interface ImportTaskRef {
  id: string;
  asset_id: string;
  stage_id: string;
}

/** The default (not consensus) tasks of the assets. */
export async function defaultTasksOf(
  trx: Executor,
  engine: string,
  projectId: string,
  assetIds: readonly string[],
): Promise<ImportTaskRef[]> {
  if (!assetIds.length) return [];
  const query = trx
    .selectFrom('tasks')
    .select(['id', 'asset_id', 'stage_id'])
    .where('project_id', '=', projectId)
    .where('deleted', '=', 0)
    .where('type', '=', 'default')
    .where('asset_id', 'in', assetIds);
  return engine === 'postgres' ? query.forUpdate().execute() : query.execute();
}

/** The layers a pre-label sets besides its answer (a layer left out keeps what the task has). */
export interface PreLabelLayers {
  brush_data_url?: string | null;
  medical_brush_data_url?: string | null;
}

/** The live tasks of the assets, consensus copies included, locked on PostgreSQL. */
export async function liveTasksOf(trx: Executor, engine: string, projectId: string, assetIds: readonly string[]) {
  const query = trx
    .selectFrom('tasks')
    .select(['id', 'asset_id', 'stage_id', 'type'])
    .where('project_id', '=', projectId)
    .where('deleted', '=', 0)
    .where('asset_id', 'in', assetIds);
  return engine === 'postgres' ? query.forUpdate().execute() : query.execute();
}

/** Writes a pre-label (and the layers it brings) onto a task. */
export async function writePreLabel(
  trx: Executor,
  taskId: string,
  answer: string,
  layers: PreLabelLayers,
  now: string,
  by: string,
): Promise<void> {
  await trx
    .updateTable('tasks')
    // A brush layer brought by a pre-label replaces a video's frame layers: it is frame 0's.
    .set({
      answer,
      is_pre_labeled: 1,
      updated_at: now,
      updated_by: by,
      ...layers,
      ...(layers.brush_data_url === undefined ? {} : { brush_frames: null }),
    })
    .where('id', '=', taskId)
    .execute();
}
