import { ascii, checkPointCount, headerEnd, type PointCloud, PointCloudError } from './cloud.js';

/* PLY (Stanford): the `vertex` element's x, y, z (and intensity when present), ascii or binary little-endian. */

const TYPES: Record<string, number> = {
  char: 1,
  int8: 1,
  uchar: 1,
  uint8: 1,
  short: 2,
  int16: 2,
  ushort: 2,
  uint16: 2,
  int: 4,
  int32: 4,
  uint: 4,
  uint32: 4,
  float: 4,
  float32: 4,
  double: 8,
  float64: 8,
};

interface PlyElement {
  name: string;
  count: number;
  properties: { name: string; type: string; list: boolean }[];
}

export interface PlyHeader {
  format: 'ascii' | 'binary_little_endian';
  elements: PlyElement[];
  /** Points: the vertex element's count. */
  points: number;
  headerLength: number;
}

export function readPlyHeader(bytes: Uint8Array): PlyHeader {
  if (ascii(bytes, 0, 3) !== 'ply') throw new PointCloudError('the file does not start with "ply"');
  const end = headerEnd(bytes, (line) => line === 'end_header');
  if (end < 0) throw new PointCloudError('the PLY header has no end_header line in its first 64 KiB');
  let format: string | undefined;
  const elements: PlyElement[] = [];
  for (const raw of ascii(bytes, 0, end).split('\n')) {
    const parts = raw.trim().split(/\s+/);
    if (parts[0] === 'format') format = parts[1];
    else if (parts[0] === 'element') {
      const count = Number(parts[2]);
      if (!parts[1] || !Number.isSafeInteger(count) || count < 0)
        throw new PointCloudError(`the PLY line "${raw.trim().slice(0, 60)}" has no valid count`);
      elements.push({ name: parts[1], count, properties: [] });
    } else if (parts[0] === 'property') {
      const el = elements.at(-1);
      if (!el) throw new PointCloudError('the PLY header has a property before any element');
      const list = parts[1] === 'list';
      const type = (list ? parts[3] : parts[1]) ?? '';
      const name = (list ? parts[4] : parts[2]) ?? '';
      if (!(type in TYPES) || (list && !((parts[2] ?? '') in TYPES)))
        throw new PointCloudError(`the PLY property ${name} has an unknown type`);
      el.properties.push({ name, type, list });
    }
  }
  if (format === 'binary_big_endian')
    throw new PointCloudError('binary big-endian PLY files are not read; write them little-endian or ascii');
  if (format !== 'ascii' && format !== 'binary_little_endian')
    throw new PointCloudError('the PLY header has no known format line');
  const vertex = elements.find((e) => e.name === 'vertex');
  if (!vertex) throw new PointCloudError('the PLY file has no vertex element');
  for (const axis of ['x', 'y', 'z']) {
    if (!vertex.properties.some((p) => p.name === axis && !p.list))
      throw new PointCloudError(`the PLY vertex element has no ${axis} property`);
  }
  return { format, elements, points: vertex.count, headerLength: end };
}

function read(view: DataView, at: number, type: string): number {
  switch (type) {
    case 'char':
    case 'int8':
      return view.getInt8(at);
    case 'uchar':
    case 'uint8':
      return view.getUint8(at);
    case 'short':
    case 'int16':
      return view.getInt16(at, true);
    case 'ushort':
    case 'uint16':
      return view.getUint16(at, true);
    case 'int':
    case 'int32':
      return view.getInt32(at, true);
    case 'uint':
    case 'uint32':
      return view.getUint32(at, true);
    case 'float':
    case 'float32':
      return view.getFloat32(at, true);
    default:
      return view.getFloat64(at, true);
  }
}

export function parsePly(bytes: Uint8Array): PointCloud {
  const h = readPlyHeader(bytes);
  checkPointCount(h.points);
  const n = h.points;
  const vertexIndex = h.elements.findIndex((e) => e.name === 'vertex');
  const vertex = h.elements[vertexIndex] as PlyElement;
  const props = vertex.properties;
  const intensityAt = props.findIndex((p) => ['intensity', 'scalar_intensity', 'reflectance'].includes(p.name));
  const positions = new Float32Array(n * 3);
  const intensity = intensityAt >= 0 ? new Float32Array(n) : undefined;
  const axes = ['x', 'y', 'z'].map((a) => props.findIndex((p) => p.name === a));
  const body = bytes.subarray(h.headerLength);
  if (h.format === 'ascii') {
    const lines = ascii(body)
      .split('\n')
      .filter((l) => l.trim());
    const skip = h.elements.slice(0, vertexIndex).reduce((s, e) => s + e.count, 0);
    if (lines.length < skip + n) throw new PointCloudError(`the PLY file holds fewer points than its header's ${n}`);
    for (let i = 0; i < n; i++) {
      const parts = (lines[skip + i] as string).trim().split(/\s+/);
      for (let a = 0; a < 3; a++) positions[i * 3 + a] = Number(parts[axes[a] as number]);
      if (intensity) intensity[i] = Number(parts[intensityAt]);
    }
    return { count: n, positions, intensity };
  }
  let at = 0;
  for (const el of h.elements.slice(0, vertexIndex)) {
    if (el.properties.some((p) => p.list))
      throw new PointCloudError('the PLY vertex element must come before elements with lists');
    at += el.count * el.properties.reduce((s, p) => s + (TYPES[p.type] as number), 0);
  }
  if (props.some((p) => p.list)) throw new PointCloudError('the PLY vertex element has a list property');
  const offsets: number[] = [];
  let stride = 0;
  for (const p of props) {
    offsets.push(stride);
    stride += TYPES[p.type] as number;
  }
  if (body.length < at + n * stride)
    throw new PointCloudError(`the PLY file is cut short: ${n} points need ${n * stride} bytes`);
  const view = new DataView(body.buffer, body.byteOffset + at, n * stride);
  for (let i = 0; i < n; i++) {
    const base = i * stride;
    for (let a = 0; a < 3; a++) {
      const k = axes[a] as number;
      positions[i * 3 + a] = read(view, base + (offsets[k] as number), (props[k] as { type: string }).type);
    }
    if (intensity)
      intensity[i] = read(view, base + (offsets[intensityAt] as number), (props[intensityAt] as { type: string }).type);
  }
  return { count: n, positions, intensity };
}
