import type { FieldError } from '../../errors.js';
import { checkCamera, formatOfName, PointCloudError } from '../../shared/pointcloud/index.js';

/*
 * A point-cloud asset of /cloud given as URLs (`editorType: "pct"`, `dataset`: the lidar frames,
 * `pct.cameras`: each camera's calibration and one image per frame), checked and turned into the
 * stored form: `dataset` the frames, `metadata.frameTotal` and `metadata.pct = {sensors, cameras}`.
 */

export const LIDAR_SENSOR = 'lidar';
const MAX_CAMERAS = 20;

export interface PctInput {
  data: string;
  dataset?: string[] | undefined;
  metadata?: Record<string, unknown> | undefined;
  editorType?: string | undefined;
  pct?: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** True for an asset the import reads as a point cloud. */
export const isPctInput = (a: PctInput) => a.editorType === 'pct' || a.pct !== undefined;

function pathOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return url;
  }
}

/**
 * The stored metadata of a pct asset given as URLs, or undefined with `errors` filled (fields
 * named from `assets[i]`). `isHttpUrl` is the import's own URL rule.
 */
export function pctMetadata(
  a: PctInput,
  i: number,
  errors: FieldError[],
  isHttpUrl: (v: string) => boolean,
): Record<string, unknown> | undefined {
  const at = `assets[${i}]`;
  const before = errors.length;
  if (a.editorType !== undefined && a.editorType !== 'pct') {
    errors.push({ field: `${at}.editorType`, message: 'must be "pct" on an asset with pct cameras' });
  }
  const frames = a.dataset;
  if (!frames?.length) {
    errors.push({ field: `${at}.dataset`, message: "a pct asset lists its lidar frames' URLs in frame order" });
    return undefined;
  }
  for (const [k, url] of frames.entries()) {
    try {
      formatOfName(pathOf(url));
    } catch (err) {
      if (!(err instanceof PointCloudError)) throw err;
      errors.push({ field: `${at}.dataset[${k}]`, message: err.message });
    }
  }
  if (isRecord(a.metadata) && a.metadata.frameTotal !== undefined && a.metadata.frameTotal !== frames.length) {
    errors.push({
      field: `${at}.metadata.frameTotal`,
      message: `must be the number of lidar frames in dataset (${frames.length}) or left out`,
    });
  }
  const pct = a.pct ?? {};
  const cameras: Record<string, unknown>[] = [];
  if (!isRecord(pct)) errors.push({ field: `${at}.pct`, message: 'must be {cameras: [...]}' });
  else if (pct.cameras !== undefined && (!Array.isArray(pct.cameras) || pct.cameras.length > MAX_CAMERAS)) {
    errors.push({ field: `${at}.pct.cameras`, message: `must be a list of at most ${MAX_CAMERAS} cameras` });
  } else {
    const names = new Set<string>([LIDAR_SENSOR]);
    for (const [k, cam] of ((pct.cameras as unknown[] | undefined) ?? []).entries()) {
      const field = `${at}.pct.cameras[${k}]`;
      try {
        const checked = checkCamera(cam, field);
        if (names.has(checked.name)) {
          errors.push({ field: `${field}.name`, message: `"${checked.name}" names another sensor of the asset` });
        }
        names.add(checked.name);
        const images = (cam as Record<string, unknown>).images;
        if (!Array.isArray(images) || images.length !== frames.length) {
          errors.push({
            field: `${field}.images`,
            message: `must list one image URL per lidar frame (${frames.length})`,
          });
          continue;
        }
        images.forEach((img, j) => {
          if (typeof img !== 'string' || img.length > 4096 || !isHttpUrl(img)) {
            errors.push({ field: `${field}.images[${j}]`, message: 'must be an http(s) URL' });
          }
        });
        cameras.push({ ...checked, images });
      } catch (err) {
        if (!(err instanceof PointCloudError)) throw err;
        errors.push({ field: err.field ?? field, message: err.detail });
      }
    }
  }
  if (errors.length > before) return undefined;
  const sensors = [{ name: LIDAR_SENSOR, kind: 'lidar' }, ...cameras.map((c) => ({ name: c.name, kind: 'camera' }))];
  return { ...a.metadata, frameTotal: frames.length, pct: { sensors, cameras } };
}
