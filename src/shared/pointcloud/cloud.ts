/*
 * Point clouds: what a lidar frame is once read, the limits every reader applies, and the error
 * each reader throws in words. Shared by the server (asset headers, validation, exports) and the
 * browser editor: no Node imports, plain typed arrays.
 */

/** A frame with more points than this is refused in words (the editor could not show it). */
export const MAX_POINTS_PER_FRAME = 20_000_000;

/** The lidar file formats read, by file extension. */
export const CLOUD_EXTENSIONS = ['pcd', 'bin', 'ply', 'las'] as const;
export type CloudFormat = (typeof CLOUD_EXTENSIONS)[number];

/** A frame read whole: positions in file order (x, y, z interleaved, metres, lidar frame). */
export interface PointCloud {
  /** Points in the file, NaN ones included (their place in file order is kept). */
  count: number;
  positions: Float32Array;
  /** One value per point when the file has an intensity (or reflectance) field. */
  intensity?: Float32Array | undefined;
}

/** What a file's header says without its points. */
export interface CloudHeader {
  format: CloudFormat;
  /** Points in the frame. */
  points: number;
}

/** Why a lidar file or a calibration cannot be used, in words a person can act on. */
export class PointCloudError extends Error {
  /** The field at fault and what is wrong with it, when the error is about one field. */
  readonly field: string | undefined;
  readonly detail: string;
  constructor(message: string, field?: string) {
    super(field ? `${field}: ${message}` : message);
    this.name = 'PointCloudError';
    this.field = field;
    this.detail = message;
  }
}

/** The format of a file name's extension (`.laz` has none: it is refused by `checkCloudName`). */
export function cloudFormatOf(name: string): CloudFormat | undefined {
  const clean = name.split(/[?#]/)[0] ?? '';
  const dot = clean.lastIndexOf('.');
  const ext = dot < 0 ? '' : clean.slice(dot + 1).toLowerCase();
  return (CLOUD_EXTENSIONS as readonly string[]).includes(ext) ? (ext as CloudFormat) : undefined;
}

/** Throws in words when a point count cannot be shown: zero, or past the limit. */
export function checkPointCount(points: number): void {
  if (!Number.isSafeInteger(points) || points < 0) throw new PointCloudError('the file states no valid point count');
  if (points === 0) throw new PointCloudError('the frame has no points');
  if (points > MAX_POINTS_PER_FRAME) {
    throw new PointCloudError(
      `the frame has ${points.toLocaleString('en-US')} points, more than the ${MAX_POINTS_PER_FRAME.toLocaleString('en-US')} a frame may have`,
    );
  }
}

export const ascii = (bytes: Uint8Array, from = 0, to = bytes.length) => {
  let s = '';
  for (let i = from; i < to; i++) s += String.fromCharCode(bytes[i] as number);
  return s;
};

/** The offset just past the first line of `bytes` (from `from`) that satisfies `last`, or -1. */
export function headerEnd(bytes: Uint8Array, isLast: (line: string) => boolean, maxBytes = 64 * 1024): number {
  let start = 0;
  const end = Math.min(bytes.length, maxBytes);
  for (let i = 0; i < end; i++) {
    if (bytes[i] !== 10) continue;
    const line = ascii(bytes, start, i).replace(/\r$/, '').trim();
    start = i + 1;
    if (isLast(line)) return start;
  }
  return -1;
}
