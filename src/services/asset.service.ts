import type { AppContext } from '../context.js';
import { conflict, invalid, invalidField, type FieldError } from '../errors.js';
import { newId } from '../ids.js';
import type { Executor } from '../store/db.js';
import { chunked, insertInChunks } from '../store/chunks.js';
import { listBatches } from '../store/repositories/project.repository.js';
import type { AssetRow, TaskRow } from '../store/schema.js';
import { startStage } from '../workflow/graph.js';
import { startRouting } from '../workflow/routing.js';
import { EMPTY_ANSWER } from '../workflow/types.js';
import type { Principal } from './access.js';
import { loadProject } from './project.service.js';
import { projectInfo } from './project-view.js';

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
    const answer = JSON.stringify(EMPTY_ANSWER);
    const tasks: TaskRow[] = [];
    for (const { asset, batches } of prepared) {
      const task: TaskRow = {
        id: newId(ctx.clock.now()),
        project_id: row.id,
        asset_id: asset.id,
        external_id: asset.external_id,
        stage_id: start.id,
        status: 'TODO',
        assignee: null,
        priority: input.priority ?? 0,
        answer,
        review_status: null,
        duration: 0,
        total_duration: 0,
        open_issues_count: 0,
        is_pre_labeled: 0,
        type: 'default',
        parent_task_id: null,
        consensus_id: null,
        consensus_score: null,
        brush_data_url: null,
        medical_brush_data_url: null,
        stage_entered_at: now,
        deleted: 0,
        created_at: now,
        updated_at: now,
        updated_by: p.email,
        completed_at: null,
        completed_by: null,
      };
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

export interface AssetListQuery {
  page: number;
  limit: number;
  filters?: string | undefined;
}

interface AssetFilters {
  ids?: string[];
  externalIds?: string[];
  isPreLabeled?: boolean;
  batches?: string[];
}

function stringList(value: unknown, field: string): string[] {
  const list = Array.isArray(value) ? value : [value];
  if (!list.every((v) => typeof v === 'string') || list.length > 10_000) {
    throw invalidField(field, 'must be a string or an array of strings');
  }
  return list as string[];
}

/** `filters` JSON of the asset listing: `_id`, `externalId`, `isPreLabeled`, `batches` (all of them). */
export function parseAssetFilters(raw: string | undefined): AssetFilters {
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidField('filters', 'must be a JSON object');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw invalidField('filters', 'must be a JSON object');
  const out: AssetFilters = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (key === '_id') out.ids = stringList(value, 'filters._id');
    else if (key === 'externalId') out.externalIds = stringList(value, 'filters.externalId');
    else if (key === 'batches') out.batches = stringList(value, 'filters.batches');
    else if (key === 'isPreLabeled') {
      if (typeof value !== 'boolean') throw invalidField('filters.isPreLabeled', 'must be true or false');
      out.isPreLabeled = value;
    } else throw invalidField(`filters.${key}`, 'cannot filter on this; use _id, externalId, isPreLabeled, batches');
  }
  return out;
}

export async function listAssets(ctx: AppContext, p: Principal, projectId: string, q: AssetListQuery) {
  const db = ctx.store.db;
  const { row } = await loadProject(db, p, projectId, 'readAll');
  const f = parseAssetFilters(q.filters);
  let base = db.selectFrom('assets as a').where('a.project_id', '=', row.id).where('a.deleted', '=', 0);
  if (f.ids) base = base.where('a.id', 'in', f.ids.length ? f.ids : ['']);
  if (f.externalIds) base = base.where('a.external_id', 'in', f.externalIds.length ? f.externalIds : ['']);
  if (f.isPreLabeled !== undefined) {
    const flag = f.isPreLabeled ? 1 : 0;
    base = base.where((eb) =>
      eb.exists(
        eb
          .selectFrom('tasks as t')
          .select('t.id')
          .whereRef('t.asset_id', '=', 'a.id')
          .where('t.type', '=', 'default')
          .where('t.is_pre_labeled', '=', flag),
      ),
    );
  }
  if (f.batches?.length) {
    const resolve = await batchResolver(db, row.id);
    for (const ref of f.batches) {
      const batchId = resolve(ref)?.id ?? ref;
      base = base.where((eb) =>
        eb.exists(
          eb
            .selectFrom('asset_batches as ab')
            .select('ab.asset_id')
            .whereRef('ab.asset_id', '=', 'a.id')
            .where('ab.batch_id', '=', batchId),
        ),
      );
    }
  }
  const [rows, count] = await Promise.all([
    base
      .selectAll('a')
      .orderBy('a.created_at')
      .orderBy('a.id')
      .offset((q.page - 1) * q.limit)
      .limit(q.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const ids = rows.map((r) => r.id);
  const links = ids.length
    ? await db.selectFrom('asset_batches').select(['asset_id', 'batch_id']).where('asset_id', 'in', ids).execute()
    : [];
  const tasks = ids.length
    ? await db
        .selectFrom('tasks')
        .select(['id', 'asset_id', 'is_pre_labeled'])
        .where('asset_id', 'in', ids)
        .where('type', '=', 'default')
        .where('deleted', '=', 0)
        .execute()
    : [];
  const assets = rows.map((a) => {
    const task = tasks.find((t) => t.asset_id === a.id);
    return {
      _id: a.id,
      project: a.project_id,
      externalId: a.external_id,
      data: a.data,
      contextData: a.context_data === null ? null : (JSON.parse(a.context_data) as unknown),
      metadata: a.metadata === null ? {} : (JSON.parse(a.metadata) as unknown),
      storage: a.storage_id,
      attachments: JSON.parse(a.attachments) as unknown,
      batches: links.filter((l) => l.asset_id === a.id).map((l) => l.batch_id),
      taskId: task?.id ?? null,
      isPreLabeled: task?.is_pre_labeled === 1,
      createdAt: a.created_at,
      createdBy: a.created_by,
    };
  });
  return { assets, total: Number(count.n) };
}

/** DELETE /project/{id}/assets: soft-deletes the assets and their tasks (copies included). */
export async function deleteAssets(ctx: AppContext, p: Principal, projectId: string, assetIds: string[]) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'import');
    let deleted = 0;
    for (const ids of chunked([...new Set(assetIds)])) {
      const res = await trx
        .updateTable('assets')
        .set({ deleted: 1 })
        .where('project_id', '=', row.id)
        .where('deleted', '=', 0)
        .where('id', 'in', ids)
        .executeTakeFirst();
      deleted += Number(res.numUpdatedRows);
      await trx
        .updateTable('tasks')
        .set({ deleted: 1 })
        .where('project_id', '=', row.id)
        .where('asset_id', 'in', ids)
        .execute();
    }
    await trx
      .updateTable('projects')
      .set((eb) => ({ asset_count: eb('asset_count', '-', deleted) }))
      .where('id', '=', row.id)
      .execute();
    return { deletedCount: deleted };
  });
}
