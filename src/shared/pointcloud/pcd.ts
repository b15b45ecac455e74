import { ascii, checkPointCount, headerEnd, type PointCloud, PointCloudError } from './cloud.js';

/*
 * PCD (the Point Cloud Library's format, version 0.7 and earlier): a text header, then the points
 * as text (`DATA ascii`), as packed records (`DATA binary`) or LZF-compressed and stored field by
 * field (`DATA binary_compressed`).
 */

export interface PcdHeader {
  fields: string[];
  size: number[];
  type: string[];
  count: number[];
  width: number;
  height: number;
  points: number;
  data: 'ascii' | 'binary' | 'binary_compressed';
  /** Bytes of the header, where the points start. */
  headerLength: number;
}

const DATA_KINDS = ['ascii', 'binary', 'binary_compressed'] as const;

/** Reads a PCD header from the file's first bytes; throws PointCloudError in words when malformed. */
export function readPcdHeader(bytes: Uint8Array): PcdHeader {
  const end = headerEnd(bytes, (line) => /^DATA\b/i.test(line));
  if (end < 0) throw new PointCloudError('the PCD header has no DATA line in its first 64 KiB');
  const lines = ascii(bytes, 0, end)
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean);
  const entries = new Map<string, string[]>();
  for (const line of lines) {
    const [key, ...values] = line.split(/\s+/);
    if (key) entries.set(key.toUpperCase(), values);
  }
  const list = (key: string) => {
    const v = entries.get(key);
    if (!v || !v.length) throw new PointCloudError(`the PCD header has no ${key} line`);
    return v;
  };
  const int = (key: string, v: string | undefined) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 0) throw new PointCloudError(`the PCD header's ${key} is not a whole number`);
    return n;
  };
  const fields = list('FIELDS');
  const size = list('SIZE').map((v) => int('SIZE', v));
  const type = list('TYPE').map((v) => v.toUpperCase());
  const count = entries.has('COUNT') ? list('COUNT').map((v) => int('COUNT', v)) : fields.map(() => 1);
  if (size.length !== fields.length || type.length !== fields.length || count.length !== fields.length) {
    throw new PointCloudError('the PCD header has different numbers of FIELDS, SIZE, TYPE and COUNT values');
  }
  for (const [i, t] of type.entries()) {
    const s = size[i] as number;
    const ok = t === 'F' ? s === 4 || s === 8 : (t === 'I' || t === 'U') && [1, 2, 4, 8].includes(s);
    if (!ok)
      throw new PointCloudError(`the PCD field ${fields[i]} has TYPE ${t} with SIZE ${s}, which is not a number type`);
  }
  const width = int('WIDTH', list('WIDTH')[0]);
  const height = entries.has('HEIGHT') ? int('HEIGHT', list('HEIGHT')[0]) : 1;
  const points = entries.has('POINTS') ? int('POINTS', list('POINTS')[0]) : width * height;
  if (points !== width * height)
    throw new PointCloudError(`the PCD header's POINTS (${points}) is not WIDTH times HEIGHT`);
  const data = (list('DATA')[0] ?? '').toLowerCase();
  if (!(DATA_KINDS as readonly string[]).includes(data)) {
    throw new PointCloudError(`the PCD DATA kind "${data.slice(0, 40)}" is not ascii, binary or binary_compressed`);
  }
  for (const axis of ['x', 'y', 'z']) {
    if (!fields.includes(axis)) throw new PointCloudError(`the PCD file has no ${axis} field`);
  }
  return { fields, size, type, count, width, height, points, data: data as PcdHeader['data'], headerLength: end };
}

/** LZF decompression (liblzf's format, as PCL writes it), to exactly `outLength` bytes. */
export function lzfDecompress(input: Uint8Array, outLength: number): Uint8Array {
  const out = new Uint8Array(outLength);
  let ip = 0;
  let op = 0;
  const broken = () => new PointCloudError('the compressed PCD points are damaged');
  while (ip < input.length) {
    let ctrl = input[ip++] as number;
    if (ctrl < 32) {
      ctrl++;
      if (op + ctrl > outLength || ip + ctrl > input.length) throw broken();
      out.set(input.subarray(ip, ip + ctrl), op);
      ip += ctrl;
      op += ctrl;
    } else {
      let len = ctrl >> 5;
      let ref = op - ((ctrl & 0x1f) << 8) - 1;
      if (len === 7) {
        if (ip >= input.length) throw broken();
        len += input[ip++] as number;
      }
      if (ip >= input.length) throw broken();
      ref -= input[ip++] as number;
      len += 2;
      if (ref < 0 || op + len > outLength) throw broken();
      // Byte by byte: the copy may overlap what it writes (a run).
      for (let k = 0; k < len; k++) out[op++] = out[ref++] as number;
    }
  }
  if (op !== outLength) throw broken();
  return out;
}

type Reader = (view: DataView, at: number) => number;

function readerOf(type: string, size: number): Reader {
  if (type === 'F') return size === 4 ? (v, at) => v.getFloat32(at, true) : (v, at) => v.getFloat64(at, true);
  if (type === 'U') {
    if (size === 1) return (v, at) => v.getUint8(at);
    if (size === 2) return (v, at) => v.getUint16(at, true);
    if (size === 4) return (v, at) => v.getUint32(at, true);
    return (v, at) => Number(v.getBigUint64(at, true));
  }
  if (size === 1) return (v, at) => v.getInt8(at);
  if (size === 2) return (v, at) => v.getInt16(at, true);
  if (size === 4) return (v, at) => v.getInt32(at, true);
  return (v, at) => Number(v.getBigInt64(at, true));
}

const INTENSITY_FIELDS = ['intensity', 'reflectance', 'i'];

/** Reads a whole PCD file. */
export function parsePcd(bytes: Uint8Array): PointCloud {
  const h = readPcdHeader(bytes);
  checkPointCount(h.points);
  const n = h.points;
  const positions = new Float32Array(n * 3);
  const intensityField = h.fields.findIndex((f) => INTENSITY_FIELDS.includes(f.toLowerCase()));
  const intensity = intensityField >= 0 ? new Float32Array(n) : undefined;
  // Where each field's first value sits in a record, counted in values and in bytes.
  const valueAt: number[] = [];
  const byteAt: number[] = [];
  let values = 0;
  let stride = 0;
  for (let f = 0; f < h.fields.length; f++) {
    valueAt.push(values);
    byteAt.push(stride);
    values += h.count[f] as number;
    stride += (h.size[f] as number) * (h.count[f] as number);
  }
  const targets: [number, (i: number, v: number) => void][] = [];
  for (const [axis, name] of ['x', 'y', 'z'].entries()) {
    targets.push([h.fields.indexOf(name), (i, v) => void (positions[i * 3 + axis] = v)]);
  }
  if (intensity) targets.push([intensityField, (i, v) => void (intensity[i] = v)]);

  const body = bytes.subarray(h.headerLength);
  if (h.data === 'ascii') {
    const text = ascii(body);
    const lines = text.split('\n');
    let i = 0;
    for (const raw of lines) {
      const line = raw.trim();
      if (!line) continue;
      if (i >= n) break;
      const parts = line.split(/\s+/);
      if (parts.length < values)
        throw new PointCloudError(`the PCD point ${i + 1} has ${parts.length} values, not ${values}`);
      for (const [f, set] of targets) set(i, Number(parts[valueAt[f] as number]));
      i++;
    }
    if (i < n) throw new PointCloudError(`the PCD file holds ${i} points where its header says ${n}`);
    return { count: n, positions, intensity };
  }
  if (h.data === 'binary') {
    if (body.length < n * stride)
      throw new PointCloudError(`the PCD file is cut short: ${n} points need ${n * stride} bytes`);
    const view = new DataView(body.buffer, body.byteOffset, n * stride);
    for (const [f, set] of targets) {
      const read = readerOf(h.type[f] as string, h.size[f] as number);
      const off = byteAt[f] as number;
      for (let i = 0; i < n; i++) set(i, read(view, i * stride + off));
    }
    return { count: n, positions, intensity };
  }
  if (body.length < 8) throw new PointCloudError('the compressed PCD file is cut short');
  const sizes = new DataView(body.buffer, body.byteOffset, 8);
  const compressed = sizes.getUint32(0, true);
  const raw = sizes.getUint32(4, true);
  if (raw !== n * stride)
    throw new PointCloudError(
      `the compressed PCD file says ${raw} bytes of points where ${n} points take ${n * stride}`,
    );
  if (body.length < 8 + compressed) throw new PointCloudError('the compressed PCD file is cut short');
  const plain = lzfDecompress(body.subarray(8, 8 + compressed), raw);
  const view = new DataView(plain.buffer, plain.byteOffset, plain.byteLength);
  // Stored field by field: all points' values of a field, then the next field's.
  for (const [f, set] of targets) {
    const read = readerOf(h.type[f] as string, h.size[f] as number);
    const start = (byteAt[f] as number) * n;
    const step = (h.size[f] as number) * (h.count[f] as number);
    for (let i = 0; i < n; i++) set(i, read(view, start + i * step));
  }
  return { count: n, positions, intensity };
}
