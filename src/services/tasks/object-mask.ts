import { PNG } from 'pngjs';
import type { AppContext } from '../../context.js';
import { AppError, invalidField, notFound } from '../../errors.js';
import { findLiveAsset } from '../../store/repositories/asset-media.repository.js';
import type { Principal } from '../../access.js';
import { assetImageSize } from '../files/layers/brush-layer.js';
import { loadTask } from './task.service.js';
import { checkMaskLink } from './mask-link.js';
import { isId } from '../../ids.js';
import { findTask } from '../../store/repositories/task.repository.js';
import type { TaskRow } from '../../store/schema.js';

/*
 * GET /mask: one segmentation or polygon object of a task drawn alone as a PNG the size of the
 * image, the object opaque white on transparency.
 */

export type Ring = [number, number][];

/** Largest mask drawn, in pixels (a 8000x6000 image). */
export const MAX_MASK_PIXELS = 48_000_000;

/**
 * Fills the rings even-odd into a width x height bitmap (1 = inside): a pixel is inside when its
 * centre is. Zones of one object never overlap and holes lie inside their region, so even-odd
 * over every ring is the object's area.
 */
export function rasterise(rings: Ring[], width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  const edges = rings.flatMap((r) => r.map((a, i) => [a, r[(i + 1) % r.length] as [number, number]] as const));
  const xs: number[] = [];
  for (let y = 0; y < height; y++) {
    const cy = y + 0.5;
    xs.length = 0;
    for (const [a, b] of edges) {
      if (a[1] <= cy === b[1] <= cy) continue;
      xs.push(a[0] + ((cy - a[1]) * (b[0] - a[0])) / (b[1] - a[1]));
    }
    xs.sort((p, q) => p - q);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const from = Math.max(0, Math.ceil((xs[k] as number) - 0.5));
      const to = Math.min(width, Math.ceil((xs[k + 1] as number) - 0.5));
      if (to > from) out.fill(1, y * width + from, y * width + to);
    }
  }
  return out;
}

/** The rings of a stored segmentation or polygon object, or undefined for another kind. */
function ringsOf(obj: Record<string, unknown>): Ring[] | undefined {
  const seg = obj.segmentation as { zones?: { region: Ring; holes?: Ring[] }[] } | undefined;
  if (seg && Array.isArray(seg.zones)) return seg.zones.flatMap((z) => [z.region, ...(z.holes ?? [])]);
  if (Array.isArray(obj.polygon)) return [obj.polygon as Ring];
  return undefined;
}

/**
 * GET /mask with an API key: the object's mask for a caller who may read the task (404 for
 * anyone else); with a signed link (an export's `masks`), for anyone holding it.
 */
export async function objectMask(
  ctx: AppContext,
  p: Principal | undefined,
  q: { task: string; annotation: string; expires?: string | undefined; signature?: string | undefined },
): Promise<Buffer> {
  if (q.expires !== undefined || q.signature !== undefined) {
    checkMaskLink(ctx, {
      task: q.task,
      annotation: q.annotation,
      expires: q.expires ?? '',
      signature: q.signature ?? '',
    });
    const task = isId(q.task) ? await findTask(ctx.store.db, q.task) : undefined;
    if (!task) throw notFound('task');
    return drawObject(ctx, task, q.annotation);
  }
  if (!p) throw new AppError('UNAUTHENTICATED', 'missing or invalid API key: send it in the apikey header');
  const { task } = await loadTask(ctx.store.db, p, q.task).catch((err: unknown) => {
    // A task the caller may not read does not exist for the caller.
    if (err instanceof AppError && err.status === 403) throw notFound('task');
    throw err;
  });
  return drawObject(ctx, task, q.annotation);
}

async function drawObject(ctx: AppContext, task: TaskRow, objectId: string): Promise<Buffer> {
  const answer = JSON.parse(task.answer) as { tools?: Record<string, unknown>[] };
  const obj = (answer.tools ?? []).find((o) => o.objectId === objectId);
  const rings = obj && ringsOf(obj);
  if (!rings) throw notFound('segmentation or polygon object');
  const asset = await findLiveAsset(ctx.store.db, task.asset_id);
  const size = assetImageSize(asset?.metadata ?? null) ?? {
    width: Math.ceil(Math.max(1, ...rings.flat().map((pt) => pt[0]))),
    height: Math.ceil(Math.max(1, ...rings.flat().map((pt) => pt[1]))),
  };
  if (size.width * size.height > MAX_MASK_PIXELS) {
    throw invalidField('annotation', `the image is larger than ${MAX_MASK_PIXELS} pixels; no mask is drawn`);
  }
  return maskPng(rings, size);
}

/** The rings drawn as a PNG of `size`: inside opaque white, outside transparent. */
export function maskPng(rings: Ring[], size: { width: number; height: number }): Buffer {
  const bits = rasterise(rings, size.width, size.height);
  const png = new PNG({ width: size.width, height: size.height });
  for (let i = 0; i < bits.length; i++) if (bits[i]) png.data.fill(255, i * 4, i * 4 + 4);
  return PNG.sync.write(png);
}
