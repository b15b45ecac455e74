import { PointCloudError } from './cloud.js';

/*
 * Camera calibration of a point-cloud asset. A camera has intrinsics (pinhole: fx, fy, cx, cy in
 * pixels, and the image's width and height) and extrinsics: a row-major 4x4 matrix taking a
 * point of the lidar frame (x forward, y left, z up, metres) to the camera frame (x right, y
 * down, z forward). Read from our JSON form or from KITTI's object-detection `calib.txt`.
 */

export interface Intrinsics {
  fx: number;
  fy: number;
  cx: number;
  cy: number;
  width: number;
  height: number;
}

export interface CameraCalibration {
  name: string;
  intrinsics: Intrinsics;
  /** 16 numbers, row-major, lidar frame to camera frame. */
  extrinsics: number[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** a * b of two row-major 4x4 matrices. */
export function mul4(a: readonly number[], b: readonly number[]): number[] {
  const out = new Array<number>(16).fill(0);
  for (let r = 0; r < 4; r++)
    for (let c = 0; c < 4; c++) {
      let s = 0;
      for (let k = 0; k < 4; k++) s += (a[r * 4 + k] as number) * (b[k * 4 + c] as number);
      out[r * 4 + c] = s;
    }
  return out;
}

/** The inverse of a row-major 4x4 matrix (Gauss-Jordan), or undefined when it does not invert. */
export function invert4(m: readonly number[]): number[] | undefined {
  const a = [...m];
  const inv = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  const scale = Math.max(...m.map(Math.abs), 1);
  for (let c = 0; c < 4; c++) {
    let pivot = c;
    for (let r = c + 1; r < 4; r++)
      if (Math.abs(a[r * 4 + c] as number) > Math.abs(a[pivot * 4 + c] as number)) pivot = r;
    const p = a[pivot * 4 + c] as number;
    if (!Number.isFinite(p) || Math.abs(p) < 1e-9 * scale) return undefined;
    if (pivot !== c) {
      for (let k = 0; k < 4; k++) {
        [a[c * 4 + k], a[pivot * 4 + k]] = [a[pivot * 4 + k] as number, a[c * 4 + k] as number];
        [inv[c * 4 + k], inv[pivot * 4 + k]] = [inv[pivot * 4 + k] as number, inv[c * 4 + k] as number];
      }
    }
    for (let k = 0; k < 4; k++) {
      a[c * 4 + k] = (a[c * 4 + k] as number) / p;
      inv[c * 4 + k] = (inv[c * 4 + k] as number) / p;
    }
    for (let r = 0; r < 4; r++) {
      if (r === c) continue;
      const f = a[r * 4 + c] as number;
      if (f === 0) continue;
      for (let k = 0; k < 4; k++) {
        a[r * 4 + k] = (a[r * 4 + k] as number) - f * (a[c * 4 + k] as number);
        inv[r * 4 + k] = (inv[r * 4 + k] as number) - f * (inv[c * 4 + k] as number);
      }
    }
  }
  return inv;
}

/** A lidar-frame point in the camera frame. */
export function toCamera(extrinsics: readonly number[], p: { x: number; y: number; z: number }) {
  const e = extrinsics;
  const at = (r: number) =>
    (e[r * 4] as number) * p.x +
    (e[r * 4 + 1] as number) * p.y +
    (e[r * 4 + 2] as number) * p.z +
    (e[r * 4 + 3] as number);
  return { x: at(0), y: at(1), z: at(2) };
}

/** Where a camera-frame point in front of the camera falls on its image (pixels). */
export function pixelOf(k: Intrinsics, c: { x: number; y: number; z: number }) {
  return { u: k.fx * (c.x / c.z) + k.cx, v: k.fy * (c.y / c.z) + k.cy, depth: c.z };
}

/** Where a lidar-frame point falls on the camera's image (pixels), or undefined behind the camera. */
export function projectPoint(cam: CameraCalibration, p: { x: number; y: number; z: number }) {
  const c = toCamera(cam.extrinsics, p);
  if (c.z <= 1e-6) return undefined;
  return pixelOf(cam.intrinsics, c);
}

/**
 * Checks one camera of the JSON form (`path` names it in errors); throws PointCloudError naming
 * the camera and the field. The extrinsic matrix must invert (so 2D work can be lifted back).
 */
export function checkCamera(value: unknown, path: string): CameraCalibration {
  if (!isRecord(value)) throw new PointCloudError(`must be an object`, `${path}`);
  const name = value.name;
  if (typeof name !== 'string' || !name || name.length > 200)
    throw new PointCloudError(`must be a name of 1 to 200 characters`, `${path}.name`);
  const k = value.intrinsics;
  if (!isRecord(k)) throw new PointCloudError(`must be {fx, fy, cx, cy, width, height}`, `${path}.intrinsics`);
  const intrinsics = {} as Intrinsics;
  for (const key of ['fx', 'fy', 'cx', 'cy', 'width', 'height'] as const) {
    const v = k[key];
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw new PointCloudError(`must be a finite number`, `${path}.intrinsics.${key}`);
    if ((key === 'fx' || key === 'fy' || key === 'width' || key === 'height') && v <= 0) {
      throw new PointCloudError(`must be greater than 0`, `${path}.intrinsics.${key}`);
    }
    intrinsics[key] = v;
  }
  const e = value.extrinsics;
  if (!Array.isArray(e) || e.length !== 16 || !e.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw new PointCloudError(`must be 16 finite numbers (a row-major 4x4 matrix)`, `${path}.extrinsics`);
  }
  const m = e as number[];
  if (
    Math.abs(m[12] as number) > 1e-9 ||
    Math.abs(m[13] as number) > 1e-9 ||
    Math.abs(m[14] as number) > 1e-9 ||
    Math.abs((m[15] as number) - 1) > 1e-9
  ) {
    throw new PointCloudError(`the last row must be 0, 0, 0, 1`, `${path}.extrinsics`);
  }
  if (!invert4(m))
    throw new PointCloudError(`the matrix does not invert (its rotation part is singular)`, `${path}.extrinsics`);
  return { name, intrinsics, extrinsics: m };
}

/** Our JSON form: `{cameras: [{name, intrinsics: {fx, fy, cx, cy, width, height}, extrinsics: [16]}]}`. */
export function parseCalibrationJson(value: unknown, path = 'calibration'): CameraCalibration[] {
  if (!isRecord(value) || !Array.isArray(value.cameras))
    throw new PointCloudError(`must be a list of cameras`, `${path}.cameras`);
  const cams = value.cameras.map((c, i) => checkCamera(c, `${path}.cameras[${i}]`));
  const names = new Set<string>();
  for (const [i, c] of cams.entries()) {
    if (names.has(c.name)) throw new PointCloudError(`"${c.name}" appears twice`, `${path}.cameras[${i}].name`);
    names.add(c.name);
  }
  return cams;
}

/**
 * KITTI's object-detection `calib.txt` (lines `P0:` to `P3:` of 12 numbers, `R0_rect:` of 9,
 * `Tr_velo_to_cam:` of 12). Camera `name` is projected with `P<projection>` (2 for KITTI's left
 * colour camera); its image size is not in the file and is given. The extrinsics are
 * R0_rect * Tr_velo_to_cam followed by the projection matrix's own offset from camera 0.
 */
export function parseKittiCalib(
  text: string,
  cameras: { name: string; projection: number; width: number; height: number }[],
  path = 'calib.txt',
): CameraCalibration[] {
  const rows = new Map<string, number[]>();
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z0-9_]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const values = (m[2] ?? '').trim().split(/\s+/).filter(Boolean).map(Number);
    if (!values.every(Number.isFinite))
      throw new PointCloudError(`the line ${m[1]} holds a value that is not a number`, `${path}`);
    rows.set(m[1] as string, values);
  }
  const need = (key: string, n: number) => {
    const v = rows.get(key);
    if (!v) throw new PointCloudError(`has no ${key} line`, `${path}`);
    if (v.length !== n) throw new PointCloudError(`the line ${key} has ${v.length} numbers, not ${n}`, `${path}`);
    return v;
  };
  const r0 = need('R0_rect', 9);
  const tr = need('Tr_velo_to_cam', 12);
  const rect = [r0[0], r0[1], r0[2], 0, r0[3], r0[4], r0[5], 0, r0[6], r0[7], r0[8], 0, 0, 0, 0, 1] as number[];
  const velo = [...tr, 0, 0, 0, 1];
  return cameras.map((cam) => {
    const p = need(`P${cam.projection}`, 12);
    const [fx, cx, p03, fy, cy, p13, p23] = [0, 2, 3, 5, 6, 7, 11].map((i) => p[i] as number) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    if (!(fx > 0) || !(fy > 0)) throw new PointCloudError(`P${cam.projection} has no positive focal length`, `${path}`);
    const tz = p23;
    const offset = [1, 0, 0, (p03 - cx * tz) / fx, 0, 1, 0, (p13 - cy * tz) / fy, 0, 0, 1, tz, 0, 0, 0, 1];
    const extrinsics = mul4(offset, mul4(rect, velo));
    if (!invert4(extrinsics)) throw new PointCloudError(`R0_rect * Tr_velo_to_cam does not invert`, `${path}`);
    return { name: cam.name, intrinsics: { fx, fy, cx, cy, width: cam.width, height: cam.height }, extrinsics };
  });
}
