import { ascii, checkPointCount, type PointCloud, PointCloudError } from './cloud.js';

/*
 * LAS 1.0-1.4 (ASPRS): a binary header, then fixed-size point records. Every point data format
 * (0-10) starts with X, Y, Z as scaled int32 and intensity as uint16, which is all read here.
 * Compressed LAZ files are refused in words (no well-kept JavaScript reader exists).
 */

export const LAS_HEADER_BYTES = 375;

export interface LasHeader {
  version: string;
  pointFormat: number;
  recordLength: number;
  offsetToPoints: number;
  points: number;
  scale: [number, number, number];
  offset: [number, number, number];
}

export function readLasHeader(bytes: Uint8Array): LasHeader {
  if (ascii(bytes, 0, 4) !== 'LASF')
    throw new PointCloudError('the file does not start with "LASF": it is not a LAS file');
  if (bytes.length < 227) throw new PointCloudError('the LAS header is cut short');
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const major = v.getUint8(24);
  const minor = v.getUint8(25);
  const headerSize = v.getUint16(94, true);
  const offsetToPoints = v.getUint32(96, true);
  const rawFormat = v.getUint8(104);
  const recordLength = v.getUint16(105, true);
  if (rawFormat & 0xc0) {
    throw new PointCloudError(
      'the file is LAZ (compressed LAS), which is not read: decompress it to .las (laszip -i in.laz -o out.las)',
    );
  }
  const pointFormat = rawFormat;
  if (major !== 1 || minor > 4) throw new PointCloudError(`LAS version ${major}.${minor} is not read (1.0 to 1.4 are)`);
  if (pointFormat > 10) throw new PointCloudError(`LAS point data format ${pointFormat} is not read (0 to 10 are)`);
  if (recordLength < 14) throw new PointCloudError('the LAS point record length is too short for a point');
  if (offsetToPoints < headerSize)
    throw new PointCloudError("the LAS header's offset to the points falls inside the header");
  let points = v.getUint32(107, true);
  if (minor >= 4 && bytes.length >= 255) {
    const wide = Number(v.getBigUint64(247, true));
    if (wide > 0) points = wide;
  }
  const scale: [number, number, number] = [v.getFloat64(131, true), v.getFloat64(139, true), v.getFloat64(147, true)];
  const offset: [number, number, number] = [v.getFloat64(155, true), v.getFloat64(163, true), v.getFloat64(171, true)];
  if (!scale.every((s) => Number.isFinite(s) && s !== 0) || !offset.every(Number.isFinite)) {
    throw new PointCloudError("the LAS header's scale or offset is not a usable number");
  }
  return { version: `${major}.${minor}`, pointFormat, recordLength, offsetToPoints, points, scale, offset };
}

/** Reads a whole LAS file; coordinates are X * scale + offset, as the file states them. */
export function parseLas(bytes: Uint8Array): PointCloud {
  const h = readLasHeader(bytes);
  checkPointCount(h.points);
  const n = h.points;
  if (bytes.length < h.offsetToPoints + n * h.recordLength) {
    throw new PointCloudError(`the LAS file is cut short: ${n} points need ${n * h.recordLength} bytes`);
  }
  const v = new DataView(bytes.buffer, bytes.byteOffset + h.offsetToPoints, n * h.recordLength);
  const positions = new Float32Array(n * 3);
  const intensity = new Float32Array(n);
  const [sx, sy, sz] = h.scale;
  const [ox, oy, oz] = h.offset;
  for (let i = 0; i < n; i++) {
    const at = i * h.recordLength;
    positions[i * 3] = v.getInt32(at, true) * sx + ox;
    positions[i * 3 + 1] = v.getInt32(at + 4, true) * sy + oy;
    positions[i * 3 + 2] = v.getInt32(at + 8, true) * sz + oz;
    intensity[i] = v.getUint16(at + 12, true);
  }
  return { count: n, positions, intensity };
}
