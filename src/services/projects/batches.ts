import type { Clock } from '../../adapters/clock.js';
import { conflict, invalidField } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import type { Executor } from '../../store/db.js';
import { batchIdTaken, insertBatch, listBatches, renameBatch } from '../../store/repositories/project.repository.js';

/*
 * A project's batches as rows: create, rename, list. Below project.service.ts, which writes the
 * batches a project update lists, and batch.service.ts, which answers the batch routes.
 */

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
      await renameBatch(db, known.id, name);
      byName.delete(known.name);
      known.name = name;
      byName.set(name, known);
      continue;
    }
    if (byName.has(name)) throw conflict(`a batch named "${name}" already exists`);
    const id = item._id ?? newId(clock.now());
    if (item._id) {
      if (await batchIdTaken(db, id)) throw conflict(`batch id ${id} belongs to another project`);
    }
    await insertBatch(db, { id, project_id: projectId, name, created_at: now });
    const row = { id, name };
    byId.set(id, row);
    byName.set(name, row);
  }
  return listBatchViews(db, projectId);
}

export async function listBatchViews(db: Executor, projectId: string): Promise<BatchView[]> {
  return (await listBatches(db, projectId)).map((b) => ({ _id: b.id, name: b.name }));
}
