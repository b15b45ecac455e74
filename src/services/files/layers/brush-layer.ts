import { Readable } from 'node:stream';
import { isSafeKey } from '../../../adapters/file-store/file-store.js';
import type { AppContext } from '../../../context.js';
import { invalidField } from '../../../errors.js';
import { LONG_LIVED_SECONDS, newFileKey, parseStorageLink } from '../file.service.js';
import { fileStoreOf, freshFileUrl, parseFileUrl, signedFileUrl } from '../file-url.js';

/*
 * The task's brush layer: one PNG the size of the image, kept in the file store (or an object
 * of a storage of the organization) and referred to by `brushDataUrl`.
 */

/** Largest side a brush layer may have when the image's size is not known. */
export const MAX_LAYER_SIDE = 16384;
/** Largest brush layer upload, in bytes. */
export const MAX_LAYER_BYTES = 64 * 1024 * 1024;

/** Life of the brush links a task answers (GET /task, annotate, lists, /next): one hour. */
export const TASK_LINK_SECONDS = 3600;
/** Life of the brush links of exports and webhook payloads: a day, as an export's own link. */
export const SHARED_LINK_SECONDS = 24 * 3600;

/**
 * The stored brush links of a task, as a client gets them: signed afresh for `ttlSeconds`. The
 * task keeps a long-lived link of its own; what goes out expires soon after.
 */
export function taskLinks(ctx: AppContext, ttlSeconds = TASK_LINK_SECONDS) {
  return (stored: string | null) => freshFileUrl(ctx, stored, ttlSeconds);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR chunk, or undefined when `head` does not start a PNG. */
export function pngSize(head: Buffer): { width: number; height: number } | undefined {
  if (head.length < 24 || !head.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  if (head.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  const width = head.readUInt32BE(16);
  const height = head.readUInt32BE(20);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** The image's size from the asset's metadata, when the import or the editor recorded it. */
export function assetImageSize(metadata: string | null): { width: number; height: number } | undefined {
  if (!metadata) return undefined;
  try {
    const m = JSON.parse(metadata) as { width?: unknown; height?: unknown };
    const ok = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
    return ok(m.width) && ok(m.height) ? { width: m.width, height: m.height } : undefined;
  } catch {
    return undefined;
  }
}

/** Refuses bytes that are not a PNG of the image's size (or, size unknown, larger than the cap). */
function checkLayerHead(field: string, head: Buffer, image: { width: number; height: number } | undefined) {
  const size = pngSize(head);
  if (!size) throw invalidField(field, 'is not a PNG image');
  if (image && (size.width !== image.width || size.height !== image.height)) {
    throw invalidField(
      field,
      `is a ${size.width}x${size.height} PNG; the brush layer must be the image's size, ${image.width}x${image.height}`,
    );
  }
  if (size.width > MAX_LAYER_SIDE || size.height > MAX_LAYER_SIDE) {
    throw invalidField(field, `is larger than ${MAX_LAYER_SIDE} pixels on a side`);
  }
}

async function readHead(ctx: AppContext, key: string, bytes: number): Promise<Buffer | undefined> {
  const store = fileStoreOf(ctx);
  if (!(await store.stat(key))) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of await store.openRead(key, { start: 0, end: bytes - 1 })) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Checks a layer's link sent by a client: a link of our file store to a file of the task's
 * project whose first `headBytes` pass `checkHead`, or a link of ours to an object of a storage of
 * the project's organization. Anything else (another server's URL, a file of another project) is
 * a 400 naming `field`. Answers the value to store.
 */
export async function checkLayerLink(
  ctx: AppContext,
  field: string,
  value: string,
  where: { projectId: string; orgId: string; upload: string },
  bases: string[] | undefined,
  headBytes: number,
  checkHead: (head: Buffer) => void,
): Promise<string> {
  const link = parseFileUrl(ctx, value, bases);
  if (!link)
    throw invalidField(
      field,
      `must be a link of this server's file store (${where.upload}) or of a storage of the organization`,
    );
  const storage = parseStorageLink(link.key);
  if (storage) {
    if (storage.orgId !== where.orgId) throw invalidField(field, 'is an object of a storage of another organization');
    return value;
  }
  if (!isSafeKey(link.key) || link.key.split('/')[0] !== where.projectId) {
    throw invalidField(field, 'is not a file of this project');
  }
  const head = await readHead(ctx, link.key, headBytes);
  if (!head) throw invalidField(field, 'names no file of the file store');
  checkHead(head);
  return signedFileUrl(ctx, 'GET', link.key, LONG_LIVED_SECONDS, new URL(value).origin + prefixOf(value));
}

/**
 * Checks a `brushDataUrl` sent by a client (checkLayerLink): in our file store, a PNG of the
 * image's size.
 */
export async function checkBrushDataUrl(
  ctx: AppContext,
  field: string,
  value: string,
  where: { projectId: string; orgId: string; image: { width: number; height: number } | undefined },
  bases?: string[],
): Promise<string> {
  const at = { ...where, upload: 'POST /task/{taskId}/brush' };
  return checkLayerLink(ctx, field, value, at, bases, 33, (head) => checkLayerHead(field, head, where.image));
}

/** The address part before `/files/` of a link of ours (keeps a configured path prefix). */
function prefixOf(value: string): string {
  const path = new URL(value).pathname;
  return path.slice(0, path.indexOf('/files/'));
}

/** Stores an uploaded brush layer and answers a long-lived read link of it. */
export async function storeBrushLayer(
  ctx: AppContext,
  where: { projectId: string; taskId: string; image: { width: number; height: number } | undefined },
  body: Buffer,
  base: string,
): Promise<{ brushDataUrl: string }> {
  checkLayerHead('body', body.subarray(0, 33), where.image);
  const key = newFileKey(where.projectId, 'brushes', `brush-${where.taskId}.png`);
  await fileStoreOf(ctx).put(key, Readable.from([body]));
  return { brushDataUrl: signedFileUrl(ctx, 'GET', key, LONG_LIVED_SECONDS, base) };
}
