import type { AppContext } from '../../context.js';
import { AppError, type FieldError, invalid } from '../../errors.js';
import {
  type CameraCalibration,
  cloudFormatOf,
  parseCalibrationJson,
  parseKittiCalib,
  PointCloudError,
} from '../../shared/pointcloud/index.js';
import type { Principal } from '../../access.js';
import { storageObjectLink } from '../files/file.service.js';
import { unknownStorageErrors } from '../storages/storage-references.js';
import { withStorage } from '../storages/storage.service.js';
import { HeadReadError } from '../../adapters/media/head-reader.js';
import { readObjectHead, sizeFromHeader } from './asset-headers.service.js';
import type { AssetInput } from './asset.service.js';

/*
 * A point-cloud asset given as a storage folder (`data: "<bucket>/<folder>"`, `storage`: the
 * storage's id, `editorType: "pct"`): `lidar/` holds one frame file per frame, each other folder
 * is a camera holding one image per frame with the frame's base name, and `calibration/` holds
 * the cameras' calibration (our JSON form, or KITTI's calib.txt). The folder is listed and read
 * once, at import, and turned into the URL form (pct-assets.ts), storage links included.
 */

const LIDAR = 'lidar';
const CALIBRATION = 'calibration';
const IMAGE = /\.(jpe?g|png|webp|bmp|gif)$/i;
/** Keys listed at most: 5,000 frames with 20 cameras, and their calibration files. */
const MAX_KEYS = 110_000;
const MAX_FRAMES = 5000;
const CALIBRATION_BYTES = 256 * 1024;
const IMAGE_HEAD_BYTES = 64 * 1024;

/** True for a pct asset given as a storage folder rather than URLs. */
export const isPctFolder = (a: AssetInput) => a.editorType === 'pct' && !/^https?:\/\//i.test(a.data);

const baseName = (name: string) => name.replace(/\.[^.]*$/, '');
const byName = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

/** The folder's files, by sub-folder: `lidar`, `calibration` and one entry per camera. */
function group(keys: string[], prefix: string) {
  const folders = new Map<string, string[]>();
  for (const key of keys) {
    const rest = key.slice(prefix.length);
    const slash = rest.indexOf('/');
    // Files beside the sub-folders, and anything deeper than one level, are not part of it.
    if (slash <= 0 || rest.indexOf('/', slash + 1) !== -1 || slash === rest.length - 1) continue;
    const folder = rest.slice(0, slash);
    folders.set(folder, [...(folders.get(folder) ?? []), rest.slice(slash + 1)]);
  }
  return folders;
}

class FolderError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

interface Folder {
  ctx: AppContext;
  orgId: string;
  storageId: string;
  bucket: string;
  prefix: string;
  linkBase: string;
  at: string;
}

async function readText(f: Folder, key: string, maxBytes = CALIBRATION_BYTES): Promise<Buffer> {
  const head = await readObjectHead(f.ctx, f.orgId, f.storageId, { bucket: f.bucket, key }, maxBytes);
  return head.bytes;
}

/** The cameras' calibration from `calibration/`: a JSON file of ours, else KITTI's calib.txt. */
async function calibrations(
  f: Folder,
  files: string[],
  cameras: { name: string; firstImage: string }[],
  firstFrame: string,
): Promise<CameraCalibration[]> {
  const json = files.filter((n) => n.toLowerCase().endsWith('.json')).sort(byName);
  const txt = files.filter((n) => n.toLowerCase().endsWith('.txt')).sort(byName);
  const field = `${f.at}.data`;
  if (json[0]) {
    const where = `${CALIBRATION}/${json[0]}`;
    let value: unknown;
    try {
      value = JSON.parse((await readText(f, f.prefix + where)).toString('utf8'));
    } catch (err) {
      if (err instanceof SyntaxError) throw new FolderError(field, `${where} is not JSON (or longer than 256 KiB)`);
      throw err;
    }
    try {
      return parseCalibrationJson(value, where);
    } catch (err) {
      if (err instanceof PointCloudError) throw new FolderError(field, `${err.field ?? where}: ${err.detail}`);
      throw err;
    }
  }
  // KITTI keeps one calib.txt per frame: the first frame's, else the first file.
  const name = txt.find((n) => baseName(n) === baseName(firstFrame)) ?? txt[0];
  if (!name) return [];
  const where = `${CALIBRATION}/${name}`;
  const text = (await readText(f, f.prefix + where)).toString('utf8');
  const sized = [];
  for (const cam of cameras) {
    // KITTI's image_2 and image_3 are projected by P2 and P3; any other camera by P2.
    const digit = /(\d)$/.exec(cam.name);
    const projection = digit ? Number(digit[1]) : 2;
    const head = await readObjectHead(
      f.ctx,
      f.orgId,
      f.storageId,
      { bucket: f.bucket, key: f.prefix + cam.firstImage },
      IMAGE_HEAD_BYTES,
    );
    const size = sizeFromHeader(head);
    if ('warning' in size) throw new FolderError(field, `${cam.firstImage}: ${size.warning}`);
    sized.push({ name: cam.name, projection, ...size });
  }
  try {
    return parseKittiCalib(text, sized, where);
  } catch (err) {
    if (err instanceof PointCloudError) throw new FolderError(field, `${err.field ?? where}: ${err.detail}`);
    throw err;
  }
}

/** The URL form of one folder asset (see the top of this file), or a FolderError naming the field. */
async function expandOne(f: Folder, a: AssetInput): Promise<AssetInput> {
  const field = `${f.at}.data`;
  const keys = await withStorage(f.ctx, f.orgId, f.storageId, f.bucket, async (adapter) => {
    const found: string[] = [];
    for await (const page of adapter.listKeys(f.bucket, f.prefix)) {
      found.push(...page);
      if (found.length > MAX_KEYS) throw new FolderError(field, `the folder holds more than ${MAX_KEYS} files`);
    }
    return found;
  });
  const folders = group(keys, f.prefix);
  const frames = (folders.get(LIDAR) ?? []).filter((n) => cloudFormatOf(n) || /\.laz$/i.test(n)).sort(byName);
  if (!frames.length) {
    throw new FolderError(field, `the folder has no lidar/ files (.pcd, .bin, .ply or .las, one per frame)`);
  }
  if (frames.length > MAX_FRAMES) throw new FolderError(field, `lidar/ holds more than ${MAX_FRAMES} frames`);
  const cameras: { name: string; images: string[] }[] = [];
  for (const [name, files] of [...folders.entries()].sort(([x], [y]) => byName(x, y))) {
    if (name === LIDAR || name === CALIBRATION) continue;
    const images = new Map(files.filter((n) => IMAGE.test(n)).map((n) => [baseName(n), n]));
    if (!images.size) continue;
    const missing = frames.find((fr) => !images.has(baseName(fr)));
    if (missing) {
      throw new FolderError(
        field,
        `the camera folder ${name}/ has no image named ${baseName(missing)} (lidar/${missing})`,
      );
    }
    cameras.push({ name, images: frames.map((fr) => images.get(baseName(fr)) as string) });
  }
  const calibrated = cameras.length
    ? await calibrations(
        f,
        folders.get(CALIBRATION) ?? [],
        cameras.map((c) => ({ name: c.name, firstImage: `${c.name}/${c.images[0]}` })),
        frames[0] as string,
      )
    : [];
  const link = (key: string) => storageObjectLink(f.ctx, f.orgId, f.storageId, f.bucket, f.prefix + key, f.linkBase);
  const dataset = frames.map((n) => link(`${LIDAR}/${n}`));
  const pctCameras = cameras.map((c) => {
    const cal = calibrated.find((k) => k.name === c.name);
    if (!cal) throw new FolderError(field, `the camera folder ${c.name}/ has no calibration in ${CALIBRATION}/`);
    return { ...cal, images: c.images.map((n) => link(`${c.name}/${n}`)) };
  });
  return {
    ...a,
    data: dataset[0] as string,
    externalId: a.externalId ?? f.prefix.replace(/\/$/, ''),
    dataset,
    pct: { cameras: pctCameras },
    metadata: { ...a.metadata, pctFolder: `${f.bucket}/${f.prefix}` },
  };
}

/**
 * The assets of an import with each pct storage folder turned into its URL form, in order. A
 * folder that cannot be read is refused naming `assets[i].data` (or `.storage`): the import
 * stops there and nothing of it is written.
 */
export async function* expandPctFolders(
  ctx: AppContext,
  p: Principal,
  assets: AsyncIterable<AssetInput> | Iterable<AssetInput>,
  linkBase: string,
): AsyncGenerator<AssetInput> {
  let i = -1;
  for await (const a of assets) {
    i++;
    if (!isPctFolder(a)) {
      yield a;
      continue;
    }
    const at = `assets[${i}]`;
    const fail = (errors: FieldError[]) => invalid(errors);
    if (a.storage === undefined) {
      throw fail([
        { field: `${at}.storage`, message: 'names the storage a pct folder (data: "<bucket>/<folder>") is in' },
      ]);
    }
    const unknown = await unknownStorageErrors(ctx.store.db, p.orgId, [{ field: `${at}.storage`, id: a.storage }]);
    if (unknown.length) throw fail(unknown);
    const slash = a.data.indexOf('/');
    const bucket = slash > 0 ? a.data.slice(0, slash) : '';
    const folder = slash > 0 ? a.data.slice(slash + 1).replace(/^\/+|\/+$/g, '') : '';
    if (!/^[A-Za-z0-9._-]{1,255}$/.test(bucket) || !folder || folder.length > 1024) {
      throw fail([{ field: `${at}.data`, message: 'must be an http(s) URL, or "<bucket>/<folder>" for a pct folder' }]);
    }
    const f: Folder = { ctx, orgId: p.orgId, storageId: a.storage, bucket, prefix: `${folder}/`, linkBase, at };
    try {
      yield await expandOne(f, a);
    } catch (err) {
      if (err instanceof FolderError) throw fail([{ field: err.field, message: err.message }]);
      if (err instanceof HeadReadError)
        throw fail([{ field: `${at}.data`, message: `a file of the folder could not be read: ${err.message}` }]);
      // The storage's own refusals (no such bucket, access denied) are said for this asset.
      if (err instanceof AppError && err.status < 500 && !err.errors?.length) {
        throw fail([{ field: `${at}.data`, message: err.message }]);
      }
      throw err;
    }
  }
}
