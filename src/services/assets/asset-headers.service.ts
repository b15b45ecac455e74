import { imageSize } from 'image-size';
import { type Head, HeadReadError, readHead } from '../../adapters/media/head-reader.js';
import { tiffPageTotal } from '../../adapters/media/tiff-pages.js';
import { readMp4, readWebm, type VideoFacts } from '../../adapters/media/video-header.js';
import { type DicomRead, readDicomHead, readNrrdHead } from '../../adapters/media/volume-header.js';
import { checkPointCount, PointCloudError, readCloudPoints } from '../../shared/pointcloud/index.js';
import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { describeError } from '../../log-safe.js';
import { isId, newId } from '../../ids.js';
import { ASSET_HEADERS_JOB, type AssetHeadersJob } from '../../jobs/kinds.js';
import { insertJobs } from '../../jobs/queue.js';
import type { JobHandler } from '../../jobs/registry.js';
import type { Executor } from '../../store/db.js';
import {
  assetsToMeasure,
  clearMediaWarning,
  findLiveAsset,
  type HeaderAsset,
  saveAssetSize,
  saveMediaWarning,
} from '../../store/repositories/asset-media.repository.js';
import { fileTypeOf } from '../../store/repositories/metrics-assets.repository.js';
import { parseStorageLink } from '../files/file.service.js';
import { fileStoreOf, parseFileUrl } from '../files/file-url.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { judgeStorageAddress } from '../storages/storage-host-policy.js';
import { signObjectUrl } from '../storages/storage.service.js';

/*
 * An imported image without a size gets it from its file's header, read in the background: only
 * the first bytes (HEADER_BYTES, over an http Range request, or from the file store), never the
 * whole picture. A video gets its size, frame count and rate the same way (and `vfr: true` when
 * its frames are unevenly spaced); an MP4 whose index is at its end costs a second range read of
 * the index alone. A TIFF gets its page count (`pageTotal`) from its chain of directories, each
 * read by a range of a few bytes where the one before says it is. A DICOM file gets its slice
 * size (Rows, Columns) and frame count, read up to its pixel data; a series (a `dataset` of DICOM
 * files) its slice size, its page count being its files': every file's head is read (a few at a
 * time, first its first 64 KiB) and files of another series (SeriesInstanceUID) or another slice
 * size than the first are named in the warning; an NRRD volume its `sizes` (a `.seg.nrrd` is a
 * voxel layer, not read). What cannot be read leaves a warning in words on the asset (`mediaWarning`)
 * instead of a stuck job, and the editor, which decodes the image anyway, fills a size still
 * missing when the task is first opened (PUT /v2/asset/{id}/size).
 */

/** Enough for every image format's header, EXIF blocks before a JPEG's frame header included. */
export const HEADER_BYTES = 512 * 1024;
/** Files read at once by one job. */
const CONCURRENCY = 8;
/** Bytes of each file of a series read first: a slice's elements before its pixel data fit many times over. */
const SERIES_HEADER_BYTES = 64 * 1024;
/** Assets per job: a large import becomes many small jobs that workers share. */
const PER_JOB = 500;
const IMAGE_TYPES = new Set(['png', 'jpg', 'jpeg', 'jfif', 'gif', 'webp', 'bmp', 'avif', 'tif', 'tiff', 'heic', 'ico']);
const TIFF_TYPES = new Set(['tif', 'tiff']);
const MP4_TYPES = new Set(['mp4', 'mov', 'm4v']);
const WEBM_TYPES = new Set(['webm', 'mkv']);
const VIDEO_FACTS = ['width', 'height', 'frameTotal', 'frameRate'] as const;
const DICOM_TYPES = new Set(['dcm', 'dicom']);

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const positive = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;

function metadataOf(text: string | null): Record<string, unknown> {
  try {
    const v: unknown = text ? JSON.parse(text) : {};
    return isRecord(v) ? v : {};
  } catch {
    return {};
  }
}

type Medium = 'image' | 'tiff' | 'mp4' | 'webm' | 'dicom' | 'nrrd';

function mediumOf(data: string): Medium | undefined {
  const type = fileTypeOf(data);
  if (DICOM_TYPES.has(type)) return 'dicom';
  if (type === 'nrrd') return /\.seg\.nrrd(?:[?#]|$)/i.test(data) ? undefined : 'nrrd';
  if (TIFF_TYPES.has(type)) return 'tiff';
  if (IMAGE_TYPES.has(type)) return 'image';
  if (MP4_TYPES.has(type)) return 'mp4';
  if (WEBM_TYPES.has(type)) return 'webm';
  return undefined;
}

/**
 * True for an asset whose file is an image without a size in its metadata (the stored JSON
 * text), or a video without its size, frame count or rate. The name is looked at first:
 * metadata is parsed only for images and videos.
 */
function needsSize(data: string, metadata: string | null): boolean {
  // A point cloud's metadata names its cameras: its frames' point counts are read once.
  if (metadata?.includes('"pct"')) {
    const m = metadataOf(metadata);
    if (isRecord(m.pct)) return !Array.isArray(m.pointsPerFrame);
  }
  const medium = mediumOf(data);
  if (!medium) return false;
  const m = metadataOf(metadata);
  if (medium === 'image') return !(positive(m.width) && positive(m.height));
  if (medium === 'tiff' || medium === 'dicom' || medium === 'nrrd')
    return !(positive(m.width) && positive(m.height) && positive(m.pageTotal));
  return !VIDEO_FACTS.every((k) => positive(m[k]));
}

/**
 * Queues the header reads of freshly imported assets that need one, in the transaction that
 * imports them (an import and its reads are written together, or neither is).
 */
export async function queueSizeReads(
  ctx: AppContext,
  db: Executor,
  projectId: string,
  assets: readonly { id: string; data: string; metadata: string | null }[],
) {
  if (!ctx.config.readAssetHeaders) return;
  const assetIds = assets.filter((a) => needsSize(a.data, a.metadata)).map((a) => a.id);
  if (!assetIds.length) return;
  const jobs = [];
  for (let i = 0; i < assetIds.length; i += PER_JOB) {
    const payload: AssetHeadersJob = { projectId, assetIds: assetIds.slice(i, i + PER_JOB) };
    jobs.push({ id: newId(ctx.clock.now()), kind: ASSET_HEADERS_JOB, payload });
  }
  await insertJobs(db, jobs, ctx.clock);
}

/** Asset files are reached as storages are: never link-local, private only when allowed. */
const judgeBy = (allowPrivate: boolean) => (address: string) => {
  const verdict = judgeStorageAddress(address, allowPrivate);
  return verdict.ok ? undefined : verdict.reason;
};
const judgePublicOnly = judgeBy(false);
const judgeWithPrivate = judgeBy(true);

/** The first `maxBytes` of an object of the organization's storage, under the storages' address rule. */
export async function readObjectHead(
  ctx: AppContext,
  orgId: string,
  storageId: string,
  ref: { bucket: string; key: string },
  maxBytes: number,
): Promise<Head> {
  return readHead(await signObjectUrl(ctx, orgId, storageId, ref), {
    maxBytes,
    timeoutMs: ctx.config.mediaReadTimeoutMs,
    judge: ctx.config.storageAllowPrivate ? judgeWithPrivate : judgePublicOnly,
  });
}

/** The first bytes of the asset's file (or `maxBytes` from `start`), wherever it is. */
async function headOf(
  ctx: AppContext,
  asset: HeaderAsset,
  start = 0,
  maxBytes = HEADER_BYTES,
  url = asset.data,
): Promise<Head> {
  const opts = {
    maxBytes,
    start,
    timeoutMs: ctx.config.mediaReadTimeoutMs,
    judge: ctx.config.storageAllowPrivate ? judgeWithPrivate : judgePublicOnly,
  };
  const link = parseFileUrl(ctx, url);
  if (!link) return readHead(url, opts);
  const storage = parseStorageLink(link.key);
  if (storage) {
    if (storage.orgId !== asset.orgId) throw new HeadReadError("the link names another organization's storage");
    return readHead(await signObjectUrl(ctx, storage.orgId, storage.storageId, storage), opts);
  }
  const store = fileStoreOf(ctx);
  const info = await store.stat(link.key);
  if (!info) throw new HeadReadError('the file is gone from the file store');
  const parts: Buffer[] = [];
  if (start >= info.size) throw new HeadReadError('the file is cut short');
  for await (const part of await store.openRead(link.key, { start, end: Math.min(info.size, start + maxBytes) - 1 })) {
    parts.push(part as Buffer);
  }
  return {
    bytes: Buffer.concat(parts),
    contentType: undefined,
    whole: info.size <= start + maxBytes,
    total: info.size,
  };
}

/** The size a browser shows the image at (EXIF orientations 5-8 turn it a quarter), or why not. */
export function sizeFromHeader(head: Head): { width: number; height: number } | { warning: string } {
  try {
    const found = imageSize(head.bytes);
    if (!positive(found.width) || !positive(found.height)) return { warning: 'the image header holds no size' };
    const turned = (found.orientation ?? 1) >= 5;
    return turned ? { width: found.height, height: found.width } : { width: found.width, height: found.height };
  } catch {
    if (head.contentType === 'text/html')
      return { warning: 'the address answers a web page (text/html), not an image' };
    if (!head.bytes.length) return { warning: 'the file is empty' };
    return head.whole
      ? { warning: 'the file is not an image of a known format, or it is damaged' }
      : { warning: `no image size in the file's first ${HEADER_BYTES / 1024} KiB` };
  }
}

/** A video's facts from its header (and, for an MP4 indexed at its end, the index read alone), or why not. */
async function videoFacts(
  ctx: AppContext,
  asset: HeaderAsset,
  medium: 'mp4' | 'webm',
): Promise<VideoFacts | { warning: string }> {
  const head = await headOf(ctx, asset);
  if (head.contentType === 'text/html') return { warning: 'the address answers a web page (text/html), not a video' };
  if (!head.bytes.length) return { warning: 'the file is empty' };
  if (medium === 'webm') {
    const read = readWebm(head.bytes);
    return 'facts' in read ? read.facts : { warning: read.problem };
  }
  const parts = [{ at: 0, bytes: head.bytes }];
  let read = readMp4(parts, head.total);
  if ('readFrom' in read) {
    const index = await headOf(ctx, asset, read.readFrom, read.bytes);
    read = readMp4([...parts, { at: read.readFrom, bytes: index.bytes }], head.total);
  }
  if ('facts' in read) return read.facts;
  return { warning: 'problem' in read ? read.problem : 'the video file has no index (moov)' };
}

/** A TIFF's size (its first page's) and page count, or why not. */
async function tiffFacts(
  ctx: AppContext,
  asset: HeaderAsset,
): Promise<{ width: number; height: number; pageTotal: number } | { warning: string }> {
  const head = await headOf(ctx, asset);
  const size = sizeFromHeader(head);
  if ('warning' in size) return size;
  const read = await tiffPageTotal(
    head.bytes,
    async (offset, bytes) => (await headOf(ctx, asset, offset, bytes)).bytes,
  );
  return 'problem' in read ? { warning: read.problem } : { ...size, pageTotal: read.pages };
}

/** Calls `each` on every item, at most `limit` at a time. */
async function eachAtMost<T>(items: readonly T[], limit: number, each: (item: T, k: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const k = next++;
      await each(items[k] as T, k);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The last part of a file's address, decoded (at most 200 characters), for words about it. */
function fileName(url: unknown): string {
  try {
    return decodeURIComponent(new URL(String(url)).pathname.split('/').at(-1) ?? '').slice(0, 200);
  } catch {
    return String(url).slice(0, 200);
  }
}

/**
 * A DICOM file's facts from its first `first` bytes, read again up to HEADER_BYTES when they
 * end before the pixel data's description.
 */
async function dicomRead(ctx: AppContext, asset: HeaderAsset, url: string, first = HEADER_BYTES): Promise<DicomRead> {
  const head = await headOf(ctx, asset, 0, first, url);
  if (head.contentType === 'text/html') return { problem: 'the address answers a web page (text/html), not a volume' };
  if (!head.bytes.length) return { problem: 'the file is empty' };
  const read = readDicomHead(head.bytes, head.whole);
  if ('problem' in read && !head.whole && first < HEADER_BYTES) return dicomRead(ctx, asset, url, HEADER_BYTES);
  return read;
}

/** "a.dcm", or "a.dcm and 3 other files": the first of some files named, the others counted. */
function someFiles(urls: readonly unknown[], ks: readonly number[]): string {
  const more = ks.length - 1;
  return `${fileName(urls[ks[0]!])}${more ? ` and ${more} other file${more === 1 ? '' : 's'}` : ''}`;
}

/**
 * A series' slice size from every file's head, read a few at a time; the first file of the list
 * that cannot be read, or the files of another series or slice size than the first, named in a
 * warning.
 */
async function seriesFacts(
  ctx: AppContext,
  asset: HeaderAsset,
  urls: readonly string[],
): Promise<Record<string, unknown> | { warning: string }> {
  const reads: DicomRead[] = new Array(urls.length);
  await eachAtMost(urls, CONCURRENCY, async (url, k) => {
    try {
      reads[k] = await dicomRead(ctx, asset, url, SERIES_HEADER_BYTES);
    } catch (err) {
      if (!(err instanceof HeadReadError)) throw err;
      reads[k] = { problem: err.message };
    }
  });
  const broken = reads.findIndex((r) => 'problem' in r);
  const problem = reads[broken];
  if (problem && 'problem' in problem) return { warning: `${fileName(urls[broken])}: ${problem.problem}` };
  const read = reads as Extract<DicomRead, { facts: unknown }>[];
  const first = read[0]!;
  const firstName = fileName(urls[0]);
  const indices = (differs: (r: (typeof read)[number]) => boolean) => read.flatMap((r, k) => (differs(r) ? [k] : []));
  const otherSeries = indices((r) => r.series !== first.series);
  if (otherSeries.length) {
    return {
      warning:
        `files of another series (SeriesInstanceUID) than ${firstName}: ` +
        `${someFiles(urls, otherSeries)}; a volume is one series`,
    };
  }
  const { width, height } = first.facts;
  const otherSize = indices((r) => r.facts.width !== width || r.facts.height !== height);
  if (otherSize.length) {
    const odd = read[otherSize[0]!]!.facts;
    return {
      warning:
        `files of another slice size than ${firstName} (${width}x${height} pixels): ` +
        `${someFiles(urls, otherSize)} (${odd.width}x${odd.height}); a volume's slices are one size`,
    };
  }
  return { width, height, pageTotal: urls.length };
}

/** A volume's slice size and slice count from its file's head (DICOM up to its pixel data, NRRD its header). */
async function volumeFacts(
  ctx: AppContext,
  asset: HeaderAsset,
  medium: 'dicom' | 'nrrd',
): Promise<Record<string, unknown> | { warning: string }> {
  if (medium === 'dicom') {
    const series = datasetOf(asset);
    if (series.length > 1) return seriesFacts(ctx, asset, series);
    const read = await dicomRead(ctx, asset, series[0] ?? asset.data);
    return 'problem' in read ? { warning: read.problem } : { ...read.facts };
  }
  const head = await headOf(ctx, asset);
  if (head.contentType === 'text/html') return { warning: 'the address answers a web page (text/html), not a volume' };
  if (!head.bytes.length) return { warning: 'the file is empty' };
  const read = readNrrdHead(head.bytes);
  return 'problem' in read ? { warning: read.problem } : { ...read.facts };
}

/** The files of an asset's `dataset` (its pages, a series' slices, a point cloud's frames), or none. */
function datasetOf(asset: HeaderAsset): string[] {
  try {
    const list: unknown = JSON.parse(asset.dataset ?? 'null');
    return Array.isArray(list) ? list.filter((u): u is string => typeof u === 'string') : [];
  } catch {
    return [];
  }
}

/** Bytes read of each lidar frame for its header (a .bin frame's count comes from its length). */
const CLOUD_HEADER_BYTES = 64 * 1024;

/** A point cloud's points per frame from each frame's header, or why a frame cannot be shown. */
async function cloudFacts(
  ctx: AppContext,
  asset: HeaderAsset,
): Promise<{ pointsPerFrame: number[] } | { warning: string }> {
  const frames = datasetOf(asset);
  if (!frames.length) return { warning: 'the point cloud lists no lidar frames' };
  const pointsPerFrame: number[] = [];
  for (const [k, url] of frames.entries()) {
    const name = fileName(url);
    try {
      const head = await headOf(ctx, asset, 0, CLOUD_HEADER_BYTES, url);
      if (head.contentType === 'text/html') throw new PointCloudError('the address answers a web page (text/html)');
      const points = readCloudPoints(name, head.bytes, head.whole ? head.bytes.length : head.total);
      checkPointCount(points);
      pointsPerFrame.push(points);
    } catch (err) {
      if (!(err instanceof PointCloudError) && !(err instanceof HeadReadError)) throw err;
      return { warning: `lidar frame ${k} (${name}): ${err.message}` };
    }
  }
  return { pointsPerFrame };
}

/** What the header adds to the metadata: only facts it does not hold already (the client's win). */
function factsToKeep(metadata: Record<string, unknown>, found: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(found)) if (metadata[k] === undefined) kept[k] = v;
  return kept;
}

async function measure(ctx: AppContext, asset: HeaderAsset): Promise<void> {
  if (!needsSize(asset.data, asset.metadata)) return;
  const metadata = metadataOf(asset.metadata);
  const medium = mediumOf(asset.data);
  let found: Record<string, unknown> | { warning: string };
  try {
    if (isRecord(metadata.pct)) found = await cloudFacts(ctx, asset);
    else if (medium === 'mp4' || medium === 'webm') {
      const video = await videoFacts(ctx, asset, medium);
      if ('warning' in video) found = video;
      else {
        const { vfr, ...facts } = video;
        // Marked only when the frames are unevenly spaced.
        found = vfr ? { ...facts, vfr } : facts;
      }
    } else if (medium === 'tiff') found = await tiffFacts(ctx, asset);
    else if (medium === 'dicom' || medium === 'nrrd') found = await volumeFacts(ctx, asset, medium);
    else found = sizeFromHeader(await headOf(ctx, asset));
  } catch (err) {
    // Anything else (a storage that can no longer sign, a file store error) is this asset's
    // problem, not the other assets' of the job: said in general words, logged without details.
    if (!(err instanceof HeadReadError)) {
      ctx.log.warn({ assetId: asset.id, error: describeError(err) }, 'an asset header could not be read');
    }
    found = { warning: err instanceof HeadReadError ? err.message : 'the file could not be read' };
  }
  if ('warning' in found && typeof found.warning === 'string')
    await saveMediaWarning(ctx.store.db, asset.id, found.warning);
  else await saveAssetSize(ctx.store.db, asset, { ...metadata, ...factsToKeep(metadata, found) });
}

/**
 * PUT /asset/{id}/size: the size the editor measured (it decoded the image), kept when the
 * asset's metadata has none; a size already there is never replaced. Anyone who may read the
 * project's tasks may send it.
 */
export async function fillAssetSize(
  ctx: AppContext,
  p: Principal,
  assetId: string,
  size: { width: number; height: number },
): Promise<{ filled: boolean; metadata: Record<string, unknown> }> {
  return ctx.store.db.transaction().execute(async (trx) => {
    const asset = isId(assetId) ? await findLiveAsset(trx, assetId) : undefined;
    if (!asset) throw notFound('asset');
    await loadProject(trx, p, asset.projectId, 'read');
    const metadata = metadataOf(asset.metadata);
    if (positive(metadata.width) && positive(metadata.height)) return { filled: false, metadata };
    const filled = { ...metadata, width: size.width, height: size.height };
    await saveAssetSize(trx, asset, filled);
    await clearMediaWarning(trx, asset.id);
    return { filled: true, metadata: filled };
  });
}

/** Reads the headers of a job's assets, a few at a time; each asset ends with a size or a warning. */
export function assetHeadersHandler(ctx: AppContext): JobHandler<AssetHeadersJob> {
  return async (job) => {
    const assets = await assetsToMeasure(ctx.store.db, job.payload.projectId, job.payload.assetIds);
    await eachAtMost(assets, CONCURRENCY, (asset) => measure(ctx, asset));
  };
}
