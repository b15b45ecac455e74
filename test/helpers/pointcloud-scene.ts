/*
 * A small synthetic lidar scene made by the tests: a ground plane and two boxes of points (one
 * moving forward frame by frame), a front camera of known calibration, and writers for every
 * format the readers take (.pcd ascii/binary/binary_compressed, KITTI .bin, .ply ascii and
 * binary, .las 1.2 and 1.4). Lidar frame: x forward, y left, z up, metres.
 */

export interface SceneBox {
  center: { x: number; y: number; z: number };
  dimensions: { length: number; width: number; height: number };
  yaw: number;
}

export interface ScenePoint {
  x: number;
  y: number;
  z: number;
  intensity: number;
}

/** Box A moves 0.5 m forward each frame; box B stands still. */
export function sceneBoxes(frame: number): SceneBox[] {
  return [
    { center: { x: 8 + 0.5 * frame, y: 2, z: 0.75 }, dimensions: { length: 4, width: 2, height: 1.5 }, yaw: 0.3 },
    { center: { x: 12, y: -3, z: 1 }, dimensions: { length: 2, width: 2, height: 2 }, yaw: 0 },
  ];
}

/** Points on the faces of a box (a grid of `step` metres), in the lidar frame. */
function boxPoints(b: SceneBox, step: number, intensity: number): ScenePoint[] {
  const out: ScenePoint[] = [];
  const { length: l, width: w, height: h } = b.dimensions;
  const c = Math.cos(b.yaw);
  const s = Math.sin(b.yaw);
  const push = (u: number, v: number, z: number) =>
    out.push({ x: b.center.x + u * c - v * s, y: b.center.y + u * s + v * c, z: b.center.z + z, intensity });
  const range = (size: number) => {
    const n = Math.max(1, Math.round(size / step));
    return Array.from({ length: n + 1 }, (_, i) => -size / 2 + (i * size) / n);
  };
  for (const u of range(l)) for (const z of range(h)) for (const v of [-w / 2, w / 2]) push(u, v, z);
  for (const v of range(w)) for (const z of range(h)) for (const u of [-l / 2, l / 2]) push(u, v, z);
  for (const u of range(l)) for (const v of range(w)) push(u, v, h / 2);
  return out;
}

/** The frame's points: the ground (z = 0, x 0..20, y -10..10) then each box's points. */
export function scenePoints(frame: number, groundStep = 0.5, boxStep = 0.2): ScenePoint[] {
  const ground: ScenePoint[] = [];
  for (let x = 0; x <= 20 + 1e-9; x += groundStep)
    for (let y = -10; y <= 10 + 1e-9; y += groundStep) ground.push({ x, y, z: 0, intensity: 10 });
  const boxes = sceneBoxes(frame);
  return [...ground, ...boxPoints(boxes[0]!, boxStep, 200), ...boxPoints(boxes[1]!, boxStep, 120)];
}

/** A front camera 1.5 m above the lidar, looking forward. */
export const SCENE_CAMERA = {
  name: 'front',
  intrinsics: { fx: 500, fy: 500, cx: 320, cy: 240, width: 640, height: 480 },
  extrinsics: [0, -1, 0, 0, 0, 0, -1, 1.5, 1, 0, 0, 0, 0, 0, 0, 1],
};

/** The same camera as KITTI's calib.txt says it (P2, R0_rect, Tr_velo_to_cam). */
export function sceneKittiCalib(): string {
  const e = SCENE_CAMERA.extrinsics;
  const k = SCENE_CAMERA.intrinsics;
  const p = [k.fx, 0, k.cx, 0, 0, k.fy, k.cy, 0, 0, 0, 1, 0].join(' ');
  return [
    `P0: ${p}`,
    `P1: ${p}`,
    `P2: ${p}`,
    `P3: ${p}`,
    'R0_rect: 1 0 0 0 1 0 0 0 1',
    `Tr_velo_to_cam: ${e.slice(0, 12).join(' ')}`,
    `Tr_imu_to_velo: 1 0 0 0 0 1 0 0 0 0 1 0`,
    '',
  ].join('\n');
}

/** liblzf-compatible compression (greedy, 3-byte hash matches), as PCL's binary_compressed uses. */
export function lzfCompress(input: Uint8Array): Uint8Array {
  const out: number[] = [];
  const literal: number[] = [];
  const flush = () => {
    while (literal.length) {
      const part = literal.splice(0, 32);
      out.push(part.length - 1, ...part);
    }
  };
  const table = new Map<number, number>();
  let i = 0;
  while (i < input.length) {
    if (i + 2 < input.length) {
      const key = (input[i]! << 16) | (input[i + 1]! << 8) | input[i + 2]!;
      const ref = table.get(key);
      table.set(key, i);
      if (ref !== undefined && i - ref - 1 < 8192) {
        let len = 0;
        while (i + len < input.length && len < 264 && input[ref + len] === input[i + len]) len++;
        if (len >= 3) {
          flush();
          const off = i - ref - 1;
          const l = len - 2;
          if (l < 7) out.push((l << 5) | (off >> 8), off & 0xff);
          else out.push((7 << 5) | (off >> 8), l - 7, off & 0xff);
          i += len;
          continue;
        }
      }
    }
    literal.push(input[i]!);
    i++;
  }
  flush();
  return Uint8Array.from(out);
}

const pcdHeader = (n: number, data: string) =>
  [
    '# .PCD v0.7 - Point Cloud Data file format',
    'VERSION 0.7',
    'FIELDS x y z intensity',
    'SIZE 4 4 4 4',
    'TYPE F F F F',
    'COUNT 1 1 1 1',
    `WIDTH ${n}`,
    'HEIGHT 1',
    'VIEWPOINT 0 0 0 1 0 0 0',
    `POINTS ${n}`,
    `DATA ${data}`,
    '',
  ].join('\n');

export function writePcd(points: ScenePoint[], data: 'ascii' | 'binary' | 'binary_compressed'): Buffer {
  const n = points.length;
  if (data === 'ascii') {
    return Buffer.from(pcdHeader(n, data) + points.map((p) => `${p.x} ${p.y} ${p.z} ${p.intensity}`).join('\n') + '\n');
  }
  const body = Buffer.alloc(n * 16);
  points.forEach((p, i) => {
    // binary: point by point; binary_compressed: field by field.
    const at = (f: number) => (data === 'binary' ? i * 16 + f * 4 : f * n * 4 + i * 4);
    body.writeFloatLE(p.x, at(0));
    body.writeFloatLE(p.y, at(1));
    body.writeFloatLE(p.z, at(2));
    body.writeFloatLE(p.intensity, at(3));
  });
  if (data === 'binary') return Buffer.concat([Buffer.from(pcdHeader(n, data)), body]);
  const packed = lzfCompress(body);
  const sizes = Buffer.alloc(8);
  sizes.writeUInt32LE(packed.length, 0);
  sizes.writeUInt32LE(body.length, 4);
  return Buffer.concat([Buffer.from(pcdHeader(n, data)), sizes, packed]);
}

export function writeKittiBin(points: ScenePoint[]): Buffer {
  const out = Buffer.alloc(points.length * 16);
  points.forEach((p, i) => {
    out.writeFloatLE(p.x, i * 16);
    out.writeFloatLE(p.y, i * 16 + 4);
    out.writeFloatLE(p.z, i * 16 + 8);
    out.writeFloatLE(p.intensity / 255, i * 16 + 12);
  });
  return out;
}

export function writePly(points: ScenePoint[], format: 'ascii' | 'binary_little_endian'): Buffer {
  const header = [
    'ply',
    `format ${format} 1.0`,
    'comment made by the tests',
    `element vertex ${points.length}`,
    'property float x',
    'property float y',
    'property float z',
    'property uchar intensity',
    'end_header',
    '',
  ].join('\n');
  if (format === 'ascii')
    return Buffer.from(header + points.map((p) => `${p.x} ${p.y} ${p.z} ${p.intensity}`).join('\n') + '\n');
  const body = Buffer.alloc(points.length * 13);
  points.forEach((p, i) => {
    body.writeFloatLE(p.x, i * 13);
    body.writeFloatLE(p.y, i * 13 + 4);
    body.writeFloatLE(p.z, i * 13 + 8);
    body.writeUInt8(p.intensity, i * 13 + 12);
  });
  return Buffer.concat([Buffer.from(header), body]);
}

/** LAS 1.2 point format 1 (28-byte records), or 1.4 point format 6 (30-byte records, 64-bit count). */
export function writeLas(points: ScenePoint[], version: '1.2' | '1.4'): Buffer {
  const wide = version === '1.4';
  const headerSize = wide ? 375 : 227;
  const record = wide ? 30 : 28;
  const header = Buffer.alloc(headerSize);
  header.write('LASF', 0, 'ascii');
  header.writeUInt8(1, 24);
  header.writeUInt8(wide ? 4 : 2, 25);
  header.write('annotary tests', 58, 'ascii');
  header.writeUInt16LE(headerSize, 94);
  header.writeUInt32LE(headerSize, 96);
  header.writeUInt32LE(0, 100);
  header.writeUInt8(wide ? 6 : 1, 104);
  header.writeUInt16LE(record, 105);
  header.writeUInt32LE(wide ? 0 : points.length, 107);
  const scale = 0.001;
  const offset = [100, -50, 2];
  for (let a = 0; a < 3; a++) {
    header.writeDoubleLE(scale, 131 + a * 8);
    header.writeDoubleLE(offset[a]!, 155 + a * 8);
  }
  if (wide) header.writeBigUInt64LE(BigInt(points.length), 247);
  const body = Buffer.alloc(points.length * record);
  points.forEach((p, i) => {
    const at = i * record;
    body.writeInt32LE(Math.round((p.x - offset[0]!) / scale), at);
    body.writeInt32LE(Math.round((p.y - offset[1]!) / scale), at + 4);
    body.writeInt32LE(Math.round((p.z - offset[2]!) / scale), at + 8);
    body.writeUInt16LE(p.intensity, at + 12);
  });
  return Buffer.concat([header, body]);
}
