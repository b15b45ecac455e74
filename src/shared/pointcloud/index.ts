/*
 * Point-cloud readers shared by the server and the browser editor (no Node imports): a frame's
 * header (its point count) from its first bytes, a whole frame, and camera calibrations.
 */
import { kittiBinPoints, parseKittiBin } from './bin.js';
import { type CloudFormat, cloudFormatOf, type PointCloud, PointCloudError } from './cloud.js';
import { parseLas, readLasHeader } from './las.js';
import { parsePcd, readPcdHeader } from './pcd.js';
import { parsePly, readPlyHeader } from './ply.js';

export * from './cloud.js';
export * from './calibration.js';
export { lzfDecompress, readPcdHeader, parsePcd } from './pcd.js';
export { readPlyHeader, parsePly } from './ply.js';
export { readLasHeader, parseLas } from './las.js';
export { kittiBinPoints, parseKittiBin } from './bin.js';

/** The format a file name says, or a PointCloudError in words (`.laz` included). */
export function formatOfName(name: string): CloudFormat {
  const format = cloudFormatOf(name);
  if (format) return format;
  if (/\.laz([?#]|$)/i.test(name)) {
    throw new PointCloudError(
      'LAZ (compressed LAS) files are not read: decompress them to .las (laszip -i in.laz -o out.las)',
    );
  }
  throw new PointCloudError('the lidar file is not .pcd, .bin, .ply or .las');
}

/**
 * The point count of a frame from its first bytes (`size`: the whole file's length, which a
 * `.bin` file's count comes from). Throws PointCloudError when the header is malformed.
 */
export function readCloudPoints(name: string, head: Uint8Array, size?: number): number {
  const format = formatOfName(name);
  if (format === 'bin') {
    if (size === undefined) throw new PointCloudError("the .bin file's length is unknown (the server did not say it)");
    return kittiBinPoints(size);
  }
  if (format === 'pcd') return readPcdHeader(head).points;
  if (format === 'ply') return readPlyHeader(head).points;
  return readLasHeader(head).points;
}

/** Reads a whole frame of the format its name says. */
export function parseCloud(name: string, bytes: Uint8Array): PointCloud {
  const format = formatOfName(name);
  if (format === 'bin') return parseKittiBin(bytes);
  if (format === 'pcd') return parsePcd(bytes);
  if (format === 'ply') return parsePly(bytes);
  return parseLas(bytes);
}
export * from './cuboid.js';
