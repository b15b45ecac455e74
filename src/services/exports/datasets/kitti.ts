import {
  type CameraCalibration,
  checkCamera,
  corners,
  type Cuboid,
  cuboidProblem,
  EDGES,
  pixelOf,
  PointCloudError,
  toCamera,
  wrapAngle,
} from '../../../shared/pointcloud/index.js';
import type { DatasetSource } from './dataset-source.js';
import { type DatasetObject, type DatasetTask, framesOf, stemOf } from './dataset-task.js';
import type { ZipEntry } from './dataset-zip.js';
import { clipBox, enclosing, type Pt } from './geometry.js';

/*
 * KITTI object labels of point-cloud (pct) tasks: per asset a folder named after it, holding
 * `label_2/<frame>.txt` for every lidar frame (one line per cuboid shown on the frame, tracks
 * expanded as the editor shows them) and, when the asset has a camera, `calib/<frame>.txt` in
 * KITTI's form. With a camera (the asset's first), location and rotation are in that camera's
 * frame and the 2D box is the cuboid's projection; without one, they stay in the lidar frame.
 */

export const KITTI_ABOUT = [
  'KITTI object labels of a point-cloud project. Each asset is a folder named after its externalId:',
  "`<asset>/label_2/<frame>.txt` for every lidar frame (empty when no cuboid is on it), named after the frame's lidar file",
  '(`000007.pcd` gives `000007.txt`; frames are numbered `000000`, `000001`, ... when the lidar files do not give distinct names),',
  'and `<asset>/calib/<frame>.txt` when the asset has a camera. `frame-sources.csv` gives the lidar file and camera image of each frame.',
  '',
  'A line per cuboid: `type truncated occluded alpha left top right bottom height width length x y z rotation_y`.',
  '',
  "- `type`: the tool's title, spaces replaced by `_`. Tracks are expanded: a cuboid is on every frame from its keyframe on,",
  '  moved between keyframes (centre and size linearly, yaw the shorter way round), until an `interpolationStopped` entry.',
  "- With a camera (the asset's first camera; its name is in `frame-sources.csv`): x y z is the bottom centre of the cuboid in",
  "  the camera frame (x right, y down, z forward, metres), rotation_y the heading about the camera's y axis (0: along +x,",
  "  KITTI's convention), alpha = rotation_y - atan2(x, z), and left top right bottom the box of the cuboid's projection",
  '  clipped to the image (pixels); truncated is the share of that projection outside the image (the part behind the camera',
  '  cut off). A cuboid the camera does not see is written with truncated 1 and the box `0 0 0 0`.',
  "  `calib/<frame>.txt` holds P0 to P3 (all the camera's projection), R0_rect (identity) and Tr_velo_to_cam (the",
  '  lidar-to-camera matrix), so that `P2 * R0_rect * Tr_velo_to_cam` projects a lidar point.',
  '- Without a camera: x y z is the bottom centre in the lidar frame (x forward, y left, z up: the centre less half the',
  '  height), rotation_y the yaw about +z, alpha -10 (not given) and the box `0 0 0 0`.',
  '- occluded is 0 (not labelled). Angles in radians within [-pi, pi], metres and radians with 4 decimals, pixels with 2.',
  '- Not held by KITTI labels: 3D polygons and polylines, 2D shapes on camera images, point labels, classification answers,',
  '  object ids and relations (counted below).',
];

const NEAR_M = 0.01;
const NO_ALPHA = -10;

/** A number with `d` decimals, never `-0.00`. */
function fixed(v: number, d: number): string {
  const s = v.toFixed(d);
  return Number(s) === 0 ? (0).toFixed(d) : s;
}

/** The cuboid's projection on the camera's image: its corners in front of the camera and its edges cut at the near plane. */
function imageBox(c: Cuboid, cam: CameraCalibration): { box: [number, number, number, number]; truncated: number } {
  const pts = corners(c).map((p) => toCamera(cam.extrinsics, p));
  const uv: Pt[] = [];
  const add = (p: { x: number; y: number; z: number }) => {
    const { u, v } = pixelOf(cam.intrinsics, p);
    uv.push([u, v]);
  };
  for (const p of pts) if (p.z >= NEAR_M) add(p);
  for (const [i, j] of EDGES) {
    const a = pts[i] as (typeof pts)[number];
    const b = pts[j] as (typeof pts)[number];
    if ((a.z - NEAR_M) * (b.z - NEAR_M) >= 0) continue;
    const t = (NEAR_M - a.z) / (b.z - a.z);
    add({ x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y), z: NEAR_M });
  }
  const whole = uv.length ? enclosing(uv) : undefined;
  const seen = whole && clipBox(whole, cam.intrinsics.width, cam.intrinsics.height);
  if (!whole || !seen) return { box: [0, 0, 0, 0], truncated: 1 };
  const area = whole.width * whole.height;
  return {
    box: [seen.x, seen.y, seen.x + seen.width, seen.y + seen.height],
    truncated: area > 0 ? 1 - (seen.width * seen.height) / area : 0,
  };
}

/** The KITTI line of a cuboid: in the camera's frame when there is a camera, else in the lidar frame. */
export function kittiLine(type: string, c: Cuboid, cam: CameraCalibration | undefined): string {
  const { length, width, height } = c.dimensions;
  const bottom = { x: c.center.x, y: c.center.y, z: c.center.z - height / 2 };
  let truncated = 0;
  let alpha = NO_ALPHA;
  let box: [number, number, number, number] = [0, 0, 0, 0];
  let location = bottom;
  let rotation = wrapAngle(c.yaw);
  if (cam) {
    location = toCamera(cam.extrinsics, bottom);
    // The heading turned by the extrinsics' rotation (a direction: the translation cancels).
    const from = toCamera(cam.extrinsics, { x: 0, y: 0, z: 0 });
    const to = toCamera(cam.extrinsics, { x: Math.cos(c.yaw), y: Math.sin(c.yaw), z: 0 });
    rotation = wrapAngle(Math.atan2(-(to.z - from.z), to.x - from.x));
    alpha = wrapAngle(rotation - Math.atan2(location.x, location.z));
    ({ box, truncated } = imageBox(c, cam));
  }
  return [
    type,
    fixed(Math.min(1, Math.max(0, truncated)), 2),
    '0',
    fixed(alpha, 4),
    ...box.map((v) => fixed(v, 2)),
    ...[height, width, length, location.x, location.y, location.z, rotation].map((v) => fixed(v, 4)),
  ].join(' ');
}

/** A camera's calibration in KITTI's calib.txt form (P0 to P3 its projection, R0_rect identity). */
export function kittiCalib(cam: CameraCalibration): string {
  const k = cam.intrinsics;
  const p = [k.fx, 0, k.cx, 0, 0, k.fy, k.cy, 0, 0, 0, 1, 0].join(' ');
  return [
    ...[0, 1, 2, 3].map((i) => `P${i}: ${p}`),
    'R0_rect: 1 0 0 0 1 0 0 0 1',
    `Tr_velo_to_cam: ${cam.extrinsics.slice(0, 12).join(' ')}`,
    'Tr_imu_to_velo: 1 0 0 0 0 1 0 0 0 0 1 0',
    '',
  ].join('\n');
}

/** The asset's first camera, or undefined (none, or a calibration that cannot be read: counted). */
function cameraOf(task: DatasetTask, src: DatasetSource): { cam: CameraCalibration; images: unknown[] } | undefined {
  const pct = task.metadata.pct as { cameras?: unknown } | undefined;
  const first = Array.isArray(pct?.cameras) ? (pct.cameras[0] as Record<string, unknown> | undefined) : undefined;
  if (!first) return undefined;
  try {
    return { cam: checkCamera(first, 'camera'), images: Array.isArray(first.images) ? first.images : [] };
  } catch (err) {
    if (!(err instanceof PointCloudError)) throw err;
    src.report.drop('assets whose camera calibration cannot be read (written in the lidar frame)');
    return undefined;
  }
}

/** A name per frame: the lidar files' base names when they are distinct, else the frame numbers. */
function frameNames(urls: readonly string[], count: number): string[] {
  const base = (u: string | undefined) => {
    let last = (u ?? '').split(/[?#]/)[0]?.split('/').pop() ?? '';
    try {
      last = decodeURIComponent(last);
    } catch {
      // A name that is no valid escape is kept as written.
    }
    return stemOf(last)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\.+/, '');
  };
  const names = Array.from({ length: count }, (_, f) => base(urls[f]));
  const distinct = names.every((n) => n) && new Set(names).size === names.length;
  return distinct ? names : names.map((_, f) => String(f).padStart(6, '0'));
}

const csv = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** The lines of one frame's objects; what KITTI cannot hold is counted. */
function frameLines(objects: readonly DatasetObject[], cam: CameraCalibration | undefined, src: DatasetSource) {
  const lines: string[] = [];
  for (const o of objects) {
    if (o.cls.tool !== 'pct' || o.markingTool !== 'cuboid') {
      src.report.drop(`${o.markingTool ?? o.cls.tool} objects, counted per frame shown (KITTI labels hold cuboids)`);
      continue;
    }
    if (cuboidProblem(o.geometry) !== undefined) {
      src.report.drop('cuboids of the wrong shape');
      continue;
    }
    lines.push(kittiLine(o.cls.name.replace(/\s+/g, '_'), o.geometry as Cuboid, cam));
    src.report.keep('cuboids (one per frame shown)');
  }
  return lines;
}

export async function* kittiEntries(src: DatasetSource): AsyncGenerator<ZipEntry> {
  const sources = ['label_file,frame,lidar_url,camera,image_url,asset_id,external_id'];
  for await (const task of src.tasks()) {
    const camera = cameraOf(task, src);
    const count = Math.max(task.frameTotal ?? 0, task.frameUrls.length, ...task.objects.map((o) => (o.page ?? 0) + 1));
    const names = frameNames(task.frameUrls, count);
    const frames = framesOf(task);
    let shown = frames.next();
    for (let f = 0; f < count; f++) {
      let objects: readonly DatasetObject[] = [];
      while (!shown.done && (shown.value.frame ?? 0) < f) shown = frames.next();
      if (!shown.done && (shown.value.frame ?? 0) === f) objects = shown.value.objects;
      const label = `${task.stem}/label_2/${names[f]}.txt`;
      src.report.images++;
      const lines = frameLines(objects, camera?.cam, src);
      yield { name: label, data: lines.length ? `${lines.join('\n')}\n` : '' };
      if (camera) yield { name: `${task.stem}/calib/${names[f]}.txt`, data: kittiCalib(camera.cam) };
      const image = camera?.images[f];
      sources.push(
        [
          csv(label),
          f,
          csv(src.link(task.frameUrls[f] ?? '')),
          csv(camera?.cam.name ?? ''),
          csv(typeof image === 'string' ? src.link(image) : ''),
          task.assetId,
          csv(task.externalId),
        ].join(','),
      );
    }
    const attributes = task.objects.filter((o) => Object.keys(o.attributes).length).length;
    src.report.drop('objects with classification answers (KITTI labels have no attributes)', attributes);
    if (Object.keys(task.attributes).length) src.report.drop('assets with classification answers');
    src.report.drop('frames of point labels (KITTI labels hold objects)', task.pointLabelFrames);
  }
  yield { name: 'frame-sources.csv', data: `${sources.join('\n')}\n` };
  yield { name: 'README.md', data: src.report.readme('KITTI object labels', KITTI_ABOUT) };
}
