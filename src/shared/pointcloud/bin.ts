import { checkPointCount, type PointCloud, PointCloudError } from './cloud.js';

/* KITTI's velodyne `.bin`: no header, one record of four little-endian float32 per point (x, y, z, reflectance). */

export const KITTI_RECORD_BYTES = 16;

/** The point count of a `.bin` file of `size` bytes; throws in words when the size cannot be one. */
export function kittiBinPoints(size: number): number {
  if (size % KITTI_RECORD_BYTES !== 0) {
    throw new PointCloudError(
      `the .bin file's ${size} bytes are not a whole number of 16-byte points (x, y, z, reflectance)`,
    );
  }
  return size / KITTI_RECORD_BYTES;
}

export function parseKittiBin(bytes: Uint8Array): PointCloud {
  const n = kittiBinPoints(bytes.length);
  checkPointCount(n);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const positions = new Float32Array(n * 3);
  const intensity = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const at = i * KITTI_RECORD_BYTES;
    positions[i * 3] = view.getFloat32(at, true);
    positions[i * 3 + 1] = view.getFloat32(at + 4, true);
    positions[i * 3 + 2] = view.getFloat32(at + 8, true);
    intensity[i] = view.getFloat32(at + 12, true);
  }
  return { count: n, positions, intensity };
}
