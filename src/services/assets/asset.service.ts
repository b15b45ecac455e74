import type { AppContext } from '../../context.js';
import { conflict, invalid, invalidField, type FieldError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Executor } from '../../store/db.js';
import { chunked, insertInChunks } from '../../store/chunks.js';
import { assetSizeFacts } from '../../store/repositories/metrics-assets.repository.js';
import { listBatches } from '../../store/repositories/project.repository.js';
import type { AssetRow, TaskRow } from '../../store/schema.js';
import { startStage } from '../../workflow/graph.js';
import { startRouting } from '../../workflow/routing.js';
import { freshTaskRow } from '../../workflow/task-row.js';
import type { Principal } from '../identity/access.js';
import { loadProject } from '../projects/project.service.js';
import { projectInfo } from '../projects/project-view.js';

export interface AssetInput {
  data: string;
  externalId?: string | undefined;
  batches?: string[] | undefined;
  contextData?: unknown;
  metadata?: Record<string, unknown> | undefined;
  storage?: string | undefined;
}

export const MAX_URL_LENGTH = 4096;
export const MAX_EXTERNAL_ID_LENGTH = 1024;

/** `externalId` defaults to the last path segment of the asset's URL. */
export function defaultExternalId(data: string): string {
  const path = new URL(data).pathname;
  const last = path.split('/').filter(Boolean).at(-1);
  return last ? decodeURIComponent(last) : data;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Batch references by id or by name, resolved against the project's batches. */
export async function batchResolver(db: Executor, projectId: string) {
  const batches = await listBatches(db, projectId);
  const byId = new Map(batches.map((b) => [b.id, b]));
  const byName = new Map(batches.map((b) => [b.name, b]));
  return (ref: string) => byId.get(ref) ?? byName.get(ref);
}

interface Prepared {
  asset: AssetRow;
  batches: { id: string; name: string }[];
}

function prepare(
  input: AssetInput[],
  common: string[],
  resolve: (ref: string) => { id: string; name: string } | undefined,
  ctx: AppContext,
  p: Principal,
  projectId: string,
): Prepared[] {
  const errors: FieldError[] = [];
  const commonBatches = common.map((ref, i) => {
    const b = resolve(ref);
    if (!b) errors.push({ field: `batches[${i}]`, message: `no batch "${ref}" in this project` });
    return b;
  });
  const now = new Date(ctx.clock.now()).toISOString();
  const out: Prepared[] = [];
  for (const [i, a] of input.entries()) {
    if (errors.length >= 50) break;
    if (a.data.length > MAX_URL_LENGTH || !isHttpUrl(a.data)) {
      errors.push({ field: `assets[${i}].data`, message: 'must be an http(s) URL' });
      continue;
    }
    const externalId = a.externalId ?? defaultExternalId(a.data);
    if (!externalId || externalId.length > MAX_EXTERNAL_ID_LENGTH) {
      errors.push({ field: `assets[${i}].externalId`, message: `must be 1 to ${MAX_EXTERNAL_ID_LENGTH} characters` });
    }
    const batches = new Map<string, { id: string; name: string }>();
    for (const b of commonBatches) if (b) batches.set(b.id, b);
    for (const [j, ref] of (a.batches ?? []).entries()) {
      const b = resolve(ref);
      if (!b) errors.push({ field: `assets[${i}].batches[${j}]`, message: `no batch "${ref}" in this project` });
      else batches.set(b.id, b);
    }
    out.push({
      asset: {
        id: newId(ctx.clock.now()),
        project_id: projectId,
        external_id: externalId,
        data: a.data,
        context_data: a.contextData === undefined ? null : JSON.stringify(a.contextData),
        metadata: a.metadata === undefined ? null : JSON.stringify(a.metadata),
        storage_id: a.storage ?? null,
        attachments: '[]',
        deleted: 0,
        created_by: p.email,
        created_at: now,
        // Kept for the AssetSize metric: derived once here rather than on every read.
        ...assetSizeFacts(a.data, a.metadata),
      },
      batches: [...batches.values()],
    });
  }
  if (errors.length) throw invalid(errors);
  return out;
}

/** Refuses external ids already used in the project or twice in the request. */
async function assertNewExternalIds(db: Executor, projectId: string, prepared: Prepared[]): Promise<void> {
  const seen = new Map<string, number>();
  for (const [i, { asset }] of prepared.entries()) {
    if (seen.has(asset.external_id)) {
      throw conflict(`externalId "${asset.external_id}" appears twice in the request`, [
        { field: `assets[${i}].externalId`, message: 'is a duplicate' },
      ]);
    }
    seen.set(asset.external_id, i);
  }
  for (const ids of chunked([...seen.keys()])) {
    const clash = await db
      .selectFrom('assets')
      .select('external_id')
      .where('project_id', '=', projectId)
      .where('deleted', '=', 0)
      .where('external_id', 'in', ids)
      .executeTakeFirst();
    if (clash) {
      const i = seen.get(clash.external_id) ?? 0;
      throw conflict(`an asset with externalId "${clash.external_id}" already exists in the project`, [
        { field: `assets[${i}].externalId`, message: 'already exists' },
      ]);
    }
  }
}

/**
 * POST /project/{id}/cloud: all assets and their tasks in one transaction, or nothing. Each
 * new task passes through Start and is routed to where it rests.
 */
export async function importAssets(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  input: { assets: AssetInput[]; priority?: number | undefined; batches?: string[] | undefined },
) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'import');
    const info = projectInfo(row);
    const start = startStage(info.stages);
    if (!start) throw invalidField('stages', 'the project workflow has no Start stage');
    const prepared = prepare(input.assets, input.batches ?? [], await batchResolver(trx, row.id), ctx, p, row.id);
    await assertNewExternalIds(trx, row.id, prepared);

    const routing = startRouting(trx, ctx, info, p.email);
    const now = new Date(ctx.clock.now()).toISOString();
    const tasks: TaskRow[] = [];
    for (const { asset, batches } of prepared) {
      const task = freshTaskRow({
        id: newId(ctx.clock.now()),
        projectId: row.id,
        assetId: asset.id,
        externalId: asset.external_id,
        stageId: start.id,
        priority: input.priority ?? 0,
        now,
        actor: p.email,
      });
      routing.know(task.id, { batches });
      await routing.route({ row: task, isNew: true }, start.id);
      tasks.push(task);
    }
    await insertInChunks(
      trx,
      'assets',
      prepared.map((x) => x.asset),
    );
    await insertInChunks(
      trx,
      'asset_batches',
      prepared.flatMap((x) => x.batches.map((b) => ({ asset_id: x.asset.id, batch_id: b.id }))),
    );
    await insertInChunks(trx, 'tasks', tasks);
    await routing.flushEffects();
    await trx
      .updateTable('projects')
      .set((eb) => ({ asset_count: eb('asset_count', '+', prepared.length), updated_at: now }))
      .where('id', '=', row.id)
      .execute();
    return {
      assetsCreated: prepared.length,
      assets: prepared.map((x, i) => ({ _id: x.asset.id, externalId: x.asset.external_id, taskId: tasks[i]?.id })),
    };
  });
}
