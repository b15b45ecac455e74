import type { Clock } from '../adapters/clock.js';
import type { AppContext } from '../context.js';
import { AppError, conflict, invalidField } from '../errors.js';
import { isId, newId } from '../ids.js';
import type { Executor } from '../store/db.js';
import { listBatches } from '../store/repositories/project.repository.js';
import { chunked } from '../store/chunks.js';
import type { Principal } from './access.js';
import { loadProject } from './project.service.js';

export interface BatchInput {
  name: string;
  _id?: string | undefined;
}

export interface BatchView {
  _id: string;
  name: string;
}

export const MAX_BATCH_NAME = 200;

/**
 * Creates the batches of the list that the project lacks and keeps the rest: a known `_id`
 * with a new name renames it; a known name is kept as it is. Names stay unique (409 on a clash).
 */
export async function upsertBatches(
  db: Executor,
  clock: Clock,
  projectId: string,
  input: BatchInput[],
  field = 'batches',
): Promise<BatchView[]> {
  const existing = await listBatches(db, projectId);
  const byId = new Map(existing.map((b) => [b.id, b]));
  const byName = new Map(existing.map((b) => [b.name, b]));
  const seen = new Set<string>();
  const now = new Date(clock.now()).toISOString();
  for (const [i, item] of input.entries()) {
    const name = item.name.trim();
    if (!name || name.length > MAX_BATCH_NAME) {
      throw invalidField(`${field}[${i}].name`, `must be 1 to ${MAX_BATCH_NAME} characters`);
    }
    if (seen.has(name)) throw invalidField(`${field}[${i}].name`, `"${name}" is listed twice`);
    seen.add(name);
    if (item._id !== undefined && !isId(item._id)) {
      throw invalidField(`${field}[${i}]._id`, 'must be 24 lowercase hex characters');
    }
    const known = item._id ? byId.get(item._id) : byName.get(name);
    if (known) {
      if (known.name === name) continue;
      const clash = byName.get(name);
      if (clash && clash.id !== known.id) throw conflict(`a batch named "${name}" already exists`);
      await db.updateTable('batches').set({ name }).where('id', '=', known.id).execute();
      byName.delete(known.name);
      known.name = name;
      byName.set(name, known);
      continue;
    }
    if (byName.has(name)) throw conflict(`a batch named "${name}" already exists`);
    const id = item._id ?? newId(clock.now());
    if (item._id) {
      const elsewhere = await db.selectFrom('batches').select('id').where('id', '=', id).executeTakeFirst();
      if (elsewhere) throw conflict(`batch id ${id} belongs to another project`);
    }
    await db.insertInto('batches').values({ id, project_id: projectId, name, created_at: now }).execute();
    const row = { id, name };
    byId.set(id, row);
    byName.set(name, row);
  }
  return listBatchViews(db, projectId);
}

export async function listBatchViews(db: Executor, projectId: string): Promise<BatchView[]> {
  return (await listBatches(db, projectId)).map((b) => ({ _id: b.id, name: b.name }));
}

/** GET /batches/{projectId} */
export async function getBatches(ctx: AppContext, p: Principal, projectId: string) {
  const { row } = await loadProject(ctx.store.db, p, projectId, 'read');
  const batches = await listBatchViews(ctx.store.db, row.id);
  return { batches, total: batches.length };
}

/** POST /batches/{projectId}: a string creates one batch; an array creates the missing ones. */
export async function postBatches(ctx: AppContext, p: Principal, projectId: string, input: string | BatchInput[]) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'import');
    if (typeof input === 'string') {
      const name = input.trim();
      const clash = await trx
        .selectFrom('batches')
        .select('id')
        .where('project_id', '=', row.id)
        .where('name', '=', name)
        .executeTakeFirst();
      if (clash) throw conflict(`a batch named "${name}" already exists`);
    }
    const batches = await upsertBatches(trx, ctx.clock, row.id, typeof input === 'string' ? [{ name: input }] : input);
    return { batches, total: batches.length };
  });
}

/** POST /assignBatches: adds assets to batches (by name or id), all or nothing. */
export async function assignBatches(
  ctx: AppContext,
  p: Principal,
  input: { batches: string | string[]; assets: string | string[]; project?: string | undefined },
) {
  const refs = Array.isArray(input.batches) ? input.batches : [input.batches];
  const assetIds = [...new Set(Array.isArray(input.assets) ? input.assets : [input.assets])];
  return ctx.store.db.transaction().execute(async (trx) => {
    let projectId = input.project;
    const noSuchAsset = invalidField('assets[0]', 'no such asset');
    if (projectId === undefined) {
      // The project is the first asset's: an asset the caller cannot see (another organization,
      // a project without a role, deleted) answers exactly like one that does not exist.
      const first = isId(assetIds[0])
        ? await trx
            .selectFrom('assets')
            .innerJoin('projects', 'projects.id', 'assets.project_id')
            .select('assets.project_id')
            .where('assets.id', '=', assetIds[0])
            .where('assets.deleted', '=', 0)
            .where('projects.organization_id', '=', p.orgId)
            .where('projects.deleted', '=', 0)
            .executeTakeFirst()
        : undefined;
      if (!first) throw noSuchAsset;
      projectId = first.project_id;
    }
    const { row } = await loadProject(trx, p, projectId, 'import').catch((err: unknown) => {
      throw input.project === undefined && err instanceof AppError && err.code === 'NOT_FOUND' ? noSuchAsset : err;
    });
    const batches = await listBatches(trx, row.id);
    const resolved = refs.map((ref, i) => {
      const b = batches.find((x) => x.id === ref) ?? batches.find((x) => x.name === ref);
      if (!b) throw invalidField(`batches[${i}]`, `no batch "${ref}" in this project`);
      return b;
    });
    const found = new Set<string>();
    for (const part of chunked(assetIds)) {
      const rows = await trx
        .selectFrom('assets')
        .select('id')
        .where('project_id', '=', row.id)
        .where('deleted', '=', 0)
        .where('id', 'in', part)
        .execute();
      for (const r of rows) found.add(r.id);
    }
    const missing = assetIds.findIndex((id) => !found.has(id));
    if (missing >= 0) throw invalidField(`assets[${missing}]`, 'no such asset in this project');
    const links = assetIds.flatMap((asset_id) => resolved.map((b) => ({ asset_id, batch_id: b.id })));
    for (const part of chunked(links, 10_000)) {
      await trx
        .insertInto('asset_batches')
        .values(part)
        .onConflict((oc) => oc.columns(['asset_id', 'batch_id']).doNothing())
        .execute();
    }
    return { assets: assetIds.length, batches: resolved.map((b) => ({ _id: b.id, name: b.name })) };
  });
}
