import type { AppContext } from '../../context.js';
import { type AppError, invalid, invalidField, type FieldError } from '../../errors.js';
import { newId } from '../../ids.js';
import { describeError } from '../../log-safe.js';
import { chunked, insertInChunks } from '../../store/chunks.js';
import { setTaskPriorityOfAssets } from '../../store/repositories/asset.repository.js';
import { addToAssetCount } from '../../store/repositories/project.repository.js';
import { afterImport } from '../../store/statistics.js';
import type { TaskRow } from '../../store/schema.js';
import { startStage } from '../../workflow/graph.js';
import { startRouting } from '../../workflow/routing.js';
import { freshTaskRow } from '../../workflow/task-row.js';
import { audit } from '../audit/audit.service.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { projectInfo } from '../projects/project-view.js';
import { unknownStorageErrors } from '../storages/storage-references.js';
import { queueSizeReads } from './asset-headers.service.js';
import { expandPctFolders } from './pct-folder.js';
import {
  type AssetInput,
  batchResolver,
  duplicateInRequest,
  existingExternalId,
  prepare,
  resolveCommonBatches,
} from './asset.service.js';

/** Assets checked, built and written at a time: what an import holds in rows at once. */
export const IMPORT_CHUNK = 500;

/** What an import answers for each asset, in request order. */
export interface CreatedAsset {
  _id: string;
  externalId: string;
  taskId: string;
}

/**
 * The assets of an import as they arrive (a list, or items read from a request body as it
 * streams in) with the request-wide settings.
 */
export interface ImportSource {
  assets: AsyncIterable<AssetInput> | Iterable<AssetInput>;
  /**
   * The new tasks' priority as known now. `settled` is false while a later part of the request
   * may still set it (a body whose `priority` follows `assets`): tasks written before then are
   * given the final priority when the assets have all arrived.
   */
  priority(): { value: number | undefined; settled: boolean };
  batches?: string[] | undefined;
}

/**
 * POST /project/{id}/cloud: all assets and their tasks in one transaction, or nothing. Each
 * new task passes through Start and is routed to where it rests.
 *
 * The assets are checked, turned into rows and written `IMPORT_CHUNK` at a time as they arrive,
 * inside the one transaction, so an import holds a chunk of rows, not all of them; what it
 * created is handed to `onCreated` a chunk at a time (the caller decides how to keep it). The
 * answers to a bad request are those of checking everything first: once something is wrong,
 * the rest of the request is still checked (not written), and the transaction is rolled back:
 * field errors (at most 50) first, then an external id twice in the request, then one already
 * in the project, then unknown storages. Returns how many assets were created.
 */
export async function importAssetStream(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  source: ImportSource,
  onCreated: (part: CreatedAsset[]) => void | Promise<void>,
  /** The address storage links of pct folders start with (http/link-base.ts). */
  linkBase = ctx.config.publicUrl,
): Promise<number> {
  const created = await ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'import');
    const info = projectInfo(row);
    const start = startStage(info.stages);
    if (!start) throw invalidField('stages', 'the project workflow has no Start stage');
    const resolve = await batchResolver(trx, row.id);
    const errors: FieldError[] = [];
    const common = resolveCommonBatches(source.batches ?? [], resolve, errors);
    const badStorages: FieldError[] = [];

    const routing = startRouting(trx, ctx, info, p.email);
    const now = new Date(ctx.clock.now()).toISOString();
    const seen = new Set<string>();
    let duplicate: AppError | undefined;
    let existing: AppError | undefined;
    let createdCount = 0;
    // Assets whose tasks were written before the request's priority was known.
    const unsettled: string[] = [];

    const writeChunk = async (part: AssetInput[], from: number) => {
      if (errors.length >= 50) return;
      const prepared = prepare(part, from, common, resolve, ctx, p, info, errors);
      if (errors.length) return;
      duplicate ??= duplicateInRequest(prepared, from, seen);
      if (duplicate || existing) return;
      existing = await existingExternalId(trx, row.id, prepared, from);
      if (existing) return;
      if (badStorages.length < 50) {
        const refs = part.flatMap((a, j) =>
          a.storage === undefined ? [] : [{ field: `assets[${from + j}].storage`, id: a.storage }],
        );
        if (refs.length) badStorages.push(...(await unknownStorageErrors(trx, p.orgId, refs)));
      }
      if (badStorages.length) return;

      const priority = source.priority();
      const tasks: TaskRow[] = [];
      const created: CreatedAsset[] = [];
      for (const { asset, batches, answer } of prepared) {
        const task = freshTaskRow({
          id: newId(ctx.clock.now()),
          projectId: row.id,
          assetId: asset.id,
          externalId: asset.external_id,
          stageId: start.id,
          priority: priority.value ?? 0,
          now,
          actor: p.email,
        });
        if (answer) Object.assign(task, { answer: JSON.stringify(answer), is_pre_labeled: 1 });
        routing.know(task.id, { batches });
        await routing.route({ row: task, isNew: true }, start.id);
        tasks.push(task);
        created.push({ _id: asset.id, externalId: asset.external_id, taskId: task.id });
        if (!priority.settled) unsettled.push(asset.id);
      }
      await insertInChunks(
        trx,
        'assets',
        prepared.map((x) => x.asset),
      );
      await queueSizeReads(
        ctx,
        trx,
        row.id,
        prepared.map((x) => x.asset),
      );
      await insertInChunks(
        trx,
        'asset_batches',
        prepared.flatMap((x) => x.batches.map((b) => ({ asset_id: x.asset.id, batch_id: b.id }))),
      );
      await insertInChunks(trx, 'tasks', tasks);
      await routing.flushEffects();
      createdCount += created.length;
      await onCreated(created);
    };

    let part: AssetInput[] = [];
    let from = 0;
    // Storage folders are listed and read with the transaction's connection: SQLite has one,
    // and a read beside the open transaction would wait for it forever.
    const inTrx: AppContext = { ...ctx, store: { ...ctx.store, db: trx } };
    for await (const asset of expandPctFolders(inTrx, p, source.assets, linkBase)) {
      part.push(asset);
      if (part.length < IMPORT_CHUNK) continue;
      await writeChunk(part, from);
      from += part.length;
      part = [];
    }
    if (part.length) await writeChunk(part, from);

    if (errors.length) throw invalid(errors.slice(0, 50));
    if (duplicate) throw duplicate;
    if (existing) throw existing;
    if (badStorages.length) throw invalid(badStorages.slice(0, 50));
    const finalPriority = source.priority().value ?? 0;
    if (finalPriority !== 0) {
      // Every task of these new assets (consensus copies too) is this import's.
      for (const ids of chunked(unsettled)) {
        await setTaskPriorityOfAssets(trx, ids, finalPriority);
      }
    }
    await addToAssetCount(trx, row.id, createdCount, now);
    if (createdCount > 0) {
      await audit(trx, ctx.clock, p, {
        operation: 'assets.import',
        targetType: 'project',
        targetId: row.id,
        projectId: row.id,
        fields: [
          'assets',
          ...(source.batches?.length ? ['batches'] : []),
          ...(finalPriority !== 0 ? ['priority'] : []),
        ],
      });
    }
    return createdCount;
  });
  // PostgreSQL's statistics of a table the import made much larger, refreshed in the background.
  afterImport(ctx.store.db, created, (err) =>
    ctx.log.warn({ error: describeError(err) }, 'could not refresh the statistics after an import'),
  );
  return created;
}

/** Imports a list of assets (storage imports, chat files, inline content): see importAssetStream. */
export async function importAssets(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  input: { assets: AssetInput[]; priority?: number | undefined; batches?: string[] | undefined },
): Promise<{ assetsCreated: number; assets: CreatedAsset[] }> {
  const assets: CreatedAsset[] = [];
  const source: ImportSource = {
    assets: input.assets,
    priority: () => ({ value: input.priority, settled: true }),
    batches: input.batches,
  };
  const assetsCreated = await importAssetStream(ctx, p, projectId, source, (part) => {
    assets.push(...part);
  });
  return { assetsCreated, assets };
}
