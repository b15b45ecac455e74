import { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import type { AppContext } from '../../../context.js';
import { invalidField } from '../../../errors.js';
import { MAX_NRRD_HEADER, NrrdError, type NrrdHeader, nrrdSamples, parseNrrdHeader } from '../../../shared/nrrd.js';
import type { VoxelClasses } from '../../../workflow/consensus/voxel-overlap.js';
import { LONG_LIVED_SECONDS, newFileKey } from '../file.service.js';
import { fileStoreOf, parseFileUrl, signedFileUrl } from '../file-url.js';
import { checkLayerLink } from './brush-layer.js';

/*
 * The task's voxel layer (the `medical-brush` tool): one gzip-encoded `.seg.nrrd` the volume's
 * size, each voxel holding its class's number (0 for none), kept in the file store as the brush
 * layer is and referred to by `medicalBrushDataUrl`.
 */

/** Largest voxel layer upload, in bytes (gzip keeps a mask small). */
export const MAX_VOLUME_LAYER_BYTES = 256 * 1024 * 1024;
/** Largest number of voxels a layer may have when the volume's size is not known. */
const MAX_VOXELS = 1024 * 1024 * 1024;
const INTEGER_TYPES = new Set(['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32']);

export type VolumeSize = { width: number; height: number; slices: number };

/** The volume's size from the asset's metadata (`width`, `height`, `pageTotal`), when known. */
export function assetVolumeSize(metadata: string | null): VolumeSize | undefined {
  if (!metadata) return undefined;
  try {
    const m = JSON.parse(metadata) as { width?: unknown; height?: unknown; pageTotal?: unknown };
    const ok = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
    return ok(m.width) && ok(m.height) && ok(m.pageTotal)
      ? { width: m.width, height: m.height, slices: m.pageTotal }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The header of a voxel layer, refused in words naming `field` unless it fits the volume. */
export function checkVolumeLayerHead(field: string, head: Uint8Array, volume: VolumeSize | undefined): NrrdHeader {
  let header: NrrdHeader;
  try {
    header = parseNrrdHeader(head);
  } catch (err) {
    if (err instanceof NrrdError) throw invalidField(field, err.message);
    throw err;
  }
  if (header.sizes.length !== 3)
    throw invalidField(field, `is an NRRD of ${header.sizes.length} dimensions; a voxel layer has 3`);
  if (!INTEGER_TYPES.has(header.type)) {
    throw invalidField(field, `holds ${header.type} samples; a voxel layer holds whole class numbers`);
  }
  const [x, y, z] = header.sizes as [number, number, number];
  if (volume && (x !== volume.width || y !== volume.height || z !== volume.slices)) {
    throw invalidField(
      field,
      `is a ${x}x${y}x${z} volume; the voxel layer must be the volume's size, ${volume.width}x${volume.height}x${volume.slices}`,
    );
  }
  if (x * y * z > MAX_VOXELS) throw invalidField(field, `holds more than ${MAX_VOXELS} voxels`);
  return header;
}

/**
 * Checks a `medicalBrushDataUrl` sent by a client (checkLayerLink): in our file store, an NRRD
 * of whole numbers of the volume's size.
 */
export async function checkMedicalBrushDataUrl(
  ctx: AppContext,
  field: string,
  value: string,
  where: { projectId: string; orgId: string; volume: VolumeSize | undefined },
  bases?: string[],
): Promise<string> {
  const at = { ...where, upload: 'POST /task/{taskId}/medical-brush' };
  return checkLayerLink(ctx, field, value, at, bases, MAX_NRRD_HEADER, (head) => {
    checkVolumeLayerHead(field, head, where.volume);
  });
}

/** Output pieces of gzippedLength: large ones cost little more than the inflating itself. */
const COUNT_PIECE = 1024 * 1024;

/**
 * The number of bytes gzip data unpacks to, counted as they come and never held (a voxel layer
 * unpacks to tens of megabytes: held, they cost several times the inflating), or undefined when
 * they are more than `limit` or the data does not unpack (damaged, cut short, a wrong check sum).
 */
export function gunzippedLength(gz: Uint8Array, limit: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    let total = 0;
    const unzip = createGunzip({ chunkSize: COUNT_PIECE });
    unzip.on('data', (piece: Buffer) => {
      total += piece.length;
      if (total <= limit) return;
      unzip.destroy();
      resolve(undefined);
    });
    unzip.on('end', () => resolve(total));
    unzip.on('error', () => resolve(undefined));
    unzip.end(gz);
  });
}

/** Stores an uploaded voxel layer, whole and of the volume's size, and answers a long-lived read link of it. */
export async function storeVolumeLayer(
  ctx: AppContext,
  where: { projectId: string; taskId: string; volume: VolumeSize | undefined },
  body: Buffer,
  base: string,
): Promise<{ medicalBrushDataUrl: string }> {
  const header = checkVolumeLayerHead('body', body.subarray(0, MAX_NRRD_HEADER), where.volume);
  const need = header.sizes.reduce((a, b) => a * b, 1) * header.bytesPerSample;
  const raw = body.subarray(header.dataOffset);
  let length = raw.length;
  if (header.encoding === 'gzip') {
    const unpacked = await gunzippedLength(raw, need);
    if (unpacked === undefined) {
      throw invalidField('body', `holds gzip data that does not unpack to the ${need} bytes its sizes need`);
    }
    length = unpacked;
  }
  if (length !== need) throw invalidField('body', `holds ${length} bytes of voxels; its sizes need ${need}`);
  const key = newFileKey(where.projectId, 'brushes', `volume-${where.taskId}.seg.nrrd`);
  await fileStoreOf(ctx).put(key, Readable.from([body]));
  return { medicalBrushDataUrl: signedFileUrl(ctx, 'GET', key, LONG_LIVED_SECONDS, base) };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/**
 * A task's voxel layer read as class numbers, for consensus and benchmark scores. Only layers in
 * this server's file store are read (a link elsewhere is not fetched); one that is gone, too
 * large or not a readable 3-D NRRD of whole numbers gives no voxel (undefined).
 */
export async function readVolumeLayer(ctx: AppContext, url: string | null): Promise<VoxelClasses | undefined> {
  if (!url) return undefined;
  const link = parseFileUrl(ctx, url);
  if (!link) return undefined;
  const store = fileStoreOf(ctx);
  const info = await store.stat(link.key);
  if (!info || info.size > MAX_VOLUME_LAYER_BYTES) return undefined;
  try {
    const file = await readAll(await store.openRead(link.key));
    const header = checkVolumeLayerHead('medicalBrushDataUrl', file.subarray(0, MAX_NRRD_HEADER), undefined);
    const need = header.sizes.reduce((a, b) => a * b, 1) * header.bytesPerSample;
    const raw = file.subarray(header.dataOffset);
    const data = header.encoding === 'gzip' ? gunzipSync(raw, { maxOutputLength: need }) : raw;
    const [x, y, z] = header.sizes as [number, number, number];
    return { sizes: [x, y, z], data: nrrdSamples(header, data) };
  } catch {
    return undefined;
  }
}

/** Reads tasks' voxel layers for consensus agreement (readVolumeLayer). */
export function voxelReader(ctx: AppContext) {
  return (url: string | null) => readVolumeLayer(ctx, url);
}
