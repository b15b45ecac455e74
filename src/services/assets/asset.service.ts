import type { AppContext } from '../../context.js';
import { type AppError, conflict, type FieldError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Executor } from '../../store/db.js';
import { chunked } from '../../store/chunks.js';
import { externalIdsInProject } from '../../store/repositories/asset.repository.js';
import { assetSizeFacts } from '../../store/repositories/metrics-assets.repository.js';
import { listBatches } from '../../store/repositories/project.repository.js';
import type { AssetRow } from '../../store/schema.js';
import { validateAnswer } from '../../workflow/answer.js';
import type { ProjectInfo, TaskAnswer } from '../../workflow/types.js';
import type { Principal } from '../../access.js';
import { isPctInput, pctMetadata } from './pct-assets.js';

export interface AssetInput {
  data: string;
  externalId?: string | undefined;
  /** An asset made of several images: their URLs in page order. */
  dataset?: string[] | undefined;
  batches?: string[] | undefined;
  contextData?: unknown;
  metadata?: Record<string, unknown> | undefined;
  storage?: string | undefined;
  /** Pre-labels: classification answers set on the new task (checked against the ontology). */
  classifications?: Record<string, unknown>[] | undefined;
  /** `pct` for a point-cloud asset (its lidar frames in `dataset`, its cameras in `pct`). */
  editorType?: string | undefined;
  pct?: unknown;
}

export const MAX_URL_LENGTH = 4096;
export const MAX_EXTERNAL_ID_LENGTH = 1024;

/** `externalId` defaults to the last path segment of the asset's URL. */
export function defaultExternalId(data: string): string {
  const path = new URL(data).pathname;
  const last = path.split('/').filter(Boolean).at(-1);
  return last ? decodeURIComponent(last) : data;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

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

export interface Prepared {
  asset: AssetRow;
  batches: { id: string; name: string }[];
  /** The pre-label answer of the new task, when the asset came with classifications. */
  answer?: TaskAnswer | undefined;
}

/**
 * Checks `input` (the assets from index `offset` of the request on) and builds their rows;
 * errors go to `errors` (at most 50 in all: past that, nothing more is checked).
 */
export function prepare(
  input: AssetInput[],
  offset: number,
  commonBatches: { id: string; name: string }[],
  resolve: (ref: string) => { id: string; name: string } | undefined,
  ctx: AppContext,
  p: Principal,
  project: ProjectInfo,
  errors: FieldError[],
): Prepared[] {
  const projectId = project.id;
  const now = new Date(ctx.clock.now()).toISOString();
  const out: Prepared[] = [];
  for (const [j, a] of input.entries()) {
    const i = offset + j;
    if (errors.length >= 50) break;
    if (a.data.length > MAX_URL_LENGTH || !isHttpUrl(a.data)) {
      errors.push({ field: `assets[${i}].data`, message: 'must be an http(s) URL' });
      continue;
    }
    const externalId = a.externalId ?? defaultExternalId(a.data);
    if (!externalId || externalId.length > MAX_EXTERNAL_ID_LENGTH) {
      errors.push({ field: `assets[${i}].externalId`, message: `must be 1 to ${MAX_EXTERNAL_ID_LENGTH} characters` });
    }
    for (const [k, page] of (a.dataset ?? []).entries()) {
      if (page.length > MAX_URL_LENGTH || !isHttpUrl(page)) {
        errors.push({ field: `assets[${i}].dataset[${k}]`, message: 'must be an http(s) URL' });
      }
    }
    const pct = isPctInput(a);
    const pctFacts = pct ? pctMetadata(a, i, errors, isHttpUrl) : undefined;
    if (!pct && a.dataset && isRecord(a.metadata) && a.metadata.pageTotal !== undefined) {
      if (a.metadata.pageTotal !== a.dataset.length) {
        errors.push({
          field: `assets[${i}].metadata.pageTotal`,
          message: `must be the number of pages in dataset (${a.dataset.length}) or left out`,
        });
      }
    }
    // An asset of pages answers its page count where a video answers its frames.
    // A point cloud answers its frames instead.
    const metadata = pct ? pctFacts : a.dataset ? { ...a.metadata, pageTotal: a.dataset.length } : a.metadata;
    const batches = new Map<string, { id: string; name: string }>();
    for (const b of commonBatches) batches.set(b.id, b);
    for (const [k, ref] of (a.batches ?? []).entries()) {
      const b = resolve(ref);
      if (!b) errors.push({ field: `assets[${i}].batches[${k}]`, message: `no batch "${ref}" in this project` });
      else batches.set(b.id, b);
    }
    let answer: TaskAnswer | undefined;
    if (a.classifications?.length) {
      // Checked as a save, not a submit: required questions may stay unanswered.
      const checked = validateAnswer(
        { classifications: a.classifications },
        project.categorySchema,
        { submit: false },
        `assets[${i}]`,
      );
      errors.push(...checked.errors);
      answer = checked.value;
    }
    out.push({
      asset: {
        id: newId(ctx.clock.now()),
        project_id: projectId,
        external_id: externalId,
        data: a.data,
        media_warning: null,
        context_data: a.contextData === undefined ? null : JSON.stringify(a.contextData),
        metadata: metadata === undefined ? null : JSON.stringify(metadata),
        dataset: a.dataset ? JSON.stringify(a.dataset) : null,
        storage_id: a.storage ?? null,
        attachments: '[]',
        deleted: 0,
        created_by: p.email,
        created_at: now,
        // Kept for the AssetSize metric: derived once here rather than on every read.
        ...assetSizeFacts(a.data, metadata),
      },
      batches: [...batches.values()],
      answer,
    });
  }
  return out;
}

/** The request-wide batches (`batches`), resolved once; unknown ones are errors. */
export function resolveCommonBatches(
  common: string[],
  resolve: (ref: string) => { id: string; name: string } | undefined,
  errors: FieldError[],
): { id: string; name: string }[] {
  return common.flatMap((ref, i) => {
    const b = resolve(ref);
    if (!b) errors.push({ field: `batches[${i}]`, message: `no batch "${ref}" in this project` });
    return b ? [b] : [];
  });
}

/** The first external id of `prepared` (from index `offset`) already seen earlier in the request. */
export function duplicateInRequest(prepared: Prepared[], offset: number, seen: Set<string>): AppError | undefined {
  for (const [j, { asset }] of prepared.entries()) {
    if (seen.has(asset.external_id)) {
      return conflict(`externalId "${asset.external_id}" appears twice in the request`, [
        { field: `assets[${offset + j}].externalId`, message: 'is a duplicate' },
      ]);
    }
    seen.add(asset.external_id);
  }
  return undefined;
}

/** An external id of `prepared` (from index `offset`) already used in the project. */
export async function existingExternalId(
  db: Executor,
  projectId: string,
  prepared: Prepared[],
  offset: number,
): Promise<AppError | undefined> {
  const index = new Map(prepared.map((x, j) => [x.asset.external_id, offset + j]));
  for (const ids of chunked([...index.keys()])) {
    // `deleted` is checked here, not in SQL: with it there, SQLite searched by (project_id,
    // deleted) and read every asset of the project for each chunk of an import.
    const clash = (await externalIdsInProject(db, projectId, ids)).find((r) => r.deleted === 0);
    if (clash) {
      const i = index.get(clash.external_id) ?? 0;
      return conflict(`an asset with externalId "${clash.external_id}" already exists in the project`, [
        { field: `assets[${i}].externalId`, message: 'already exists' },
      ]);
    }
  }
  return undefined;
}
