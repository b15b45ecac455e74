import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MAX_POINTS_PER_FRAME,
  parseCalibrationJson,
  parseCloud,
  parseKittiCalib,
  PointCloudError,
  projectPoint,
  readCloudPoints,
  lzfDecompress,
  invert4,
  mul4,
  cuboidIoU,
  cuboidsOverlap,
  interpolateCuboid,
} from '../../src/shared/pointcloud/index.js';
import {
  lzfCompress,
  SCENE_CAMERA,
  sceneKittiCalib,
  scenePoints,
  writeKittiBin,
  writeLas,
  writePcd,
  writePly,
} from '../helpers/pointcloud-scene.js';

const points = scenePoints(0);
const dir = mkdtempSync(join(tmpdir(), 'pct-readers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function expectScene(name: string, bytes: Uint8Array, tolerance = 1e-4) {
  const cloud = parseCloud(name, bytes);
  expect(cloud.count).toBe(points.length);
  let worst = 0;
  points.forEach((p, i) => {
    worst = Math.max(
      worst,
      Math.abs(cloud.positions[i * 3]! - p.x),
      Math.abs(cloud.positions[i * 3 + 1]! - p.y),
      Math.abs(cloud.positions[i * 3 + 2]! - p.z),
    );
  });
  expect(worst).toBeLessThan(tolerance);
  return cloud;
}

describe('point-cloud readers', () => {
  it('read every written format back to the scene, points in file order', () => {
    for (const data of ['ascii', 'binary', 'binary_compressed'] as const) {
      const file = writePcd(points, data);
      const cloud = expectScene('f.pcd', file);
      expect(cloud.intensity?.[points.length - 1]).toBe(120);
      expect(readCloudPoints('f.pcd', file.subarray(0, 1024))).toBe(points.length);
    }
    const bin = writeKittiBin(points);
    expectScene('000000.bin', bin);
    expect(readCloudPoints('000000.bin', bin.subarray(0, 10), bin.length)).toBe(points.length);
    for (const format of ['ascii', 'binary_little_endian'] as const) {
      const file = writePly(points, format);
      expect(expectScene('f.ply', file).intensity?.[0]).toBe(10);
      expect(readCloudPoints('f.ply', file.subarray(0, 512))).toBe(points.length);
    }
    for (const version of ['1.2', '1.4'] as const) {
      const file = writeLas(points, version);
      expectScene('f.las', file, 1e-3);
      expect(readCloudPoints('f.las', file.subarray(0, 512))).toBe(points.length);
    }
  });

  it('reads binary_compressed files written by PCL itself', () => {
    const ascii = join(dir, 'scene-ascii.pcd');
    const packed = join(dir, 'scene-packed.pcd');
    writeFileSync(ascii, writePcd(points, 'ascii'));
    execFileSync('pcl_convert_pcd_ascii_binary', [ascii, packed, '2'], { stdio: 'ignore' });
    const file = readFileSync(packed);
    expect(file.toString('latin1', 0, 400)).toContain('DATA binary_compressed');
    expectScene('scene.pcd', file);
  });

  it('decompresses back-references and runs, and refuses damaged data', () => {
    const text = new TextEncoder().encode('abcabcabcabcabcabcxyz'.repeat(50) + 'a'.repeat(600));
    const packed = lzfCompress(text);
    expect(packed.length).toBeLessThan(text.length / 4);
    expect(lzfDecompress(packed, text.length)).toEqual(text);
    expect(() => lzfDecompress(packed, text.length + 1)).toThrow(/damaged/);
    expect(() => lzfDecompress(Uint8Array.from([0xe0, 0xff]), 300)).toThrow(/damaged/);
  });

  it('refuses malformed headers, empty frames, oversized frames and LAZ in words', () => {
    const say = (name: string, text: string | Uint8Array, size?: number) => {
      try {
        readCloudPoints(name, typeof text === 'string' ? new TextEncoder().encode(text) : text, size);
      } catch (err) {
        expect(err).toBeInstanceOf(PointCloudError);
        return (err as Error).message;
      }
      return 'read';
    };
    const pcd = (lines: string) => `VERSION 0.7\n${lines}\nDATA binary\n`;
    expect(say('a.pcd', 'hello world')).toMatch(/no DATA line/);
    expect(say('a.pcd', pcd('FIELDS x y z\nSIZE 4 4\nTYPE F F F\nWIDTH 3\nHEIGHT 1\nPOINTS 3'))).toMatch(
      /different numbers/,
    );
    expect(say('a.pcd', pcd('FIELDS x y\nSIZE 4 4\nTYPE F F\nWIDTH 3\nPOINTS 3'))).toMatch(/no z field/);
    expect(say('a.pcd', pcd('FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 3\nPOINTS 4'))).toMatch(/not WIDTH times/);
    expect(say('a.pcd', pcd('FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH x\nPOINTS 4'))).toMatch(/WIDTH/);
    expect(() =>
      parseCloud('a.pcd', new TextEncoder().encode(pcd('FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 0\nPOINTS 0'))),
    ).toThrow('the frame has no points');
    const huge = pcd(`FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 50000000\nPOINTS 50000000`);
    expect(readCloudPoints('a.pcd', new TextEncoder().encode(huge))).toBe(50_000_000);
    expect(() => parseCloud('a.pcd', new TextEncoder().encode(huge))).toThrow(
      /50,000,000 points, more than the 20,000,000/,
    );
    expect(MAX_POINTS_PER_FRAME).toBe(20_000_000);
    expect(say('a.bin', new Uint8Array(4), 1001)).toMatch(/not a whole number of 16-byte points/);
    expect(say('a.laz', new Uint8Array(4))).toMatch(/LAZ/);
    const las = writeLas(points.slice(0, 10), '1.2');
    las.writeUInt8(0x81, 104);
    expect(say('a.las', las)).toMatch(/LAZ/);
    expect(say('a.ply', 'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_header\n')).toMatch(
      /no y property/,
    );
    expect(say('a.las', 'not a las file')).toMatch(/not a LAS file/);
    expect(say('a.xyz', 'x')).toMatch(/not .pcd, .bin, .ply or .las/);
    expect(() => parseCloud('a.pcd', writePcd(points, 'binary').subarray(0, 500))).toThrow(/cut short/);
  });
});

describe('calibration', () => {
  it('reads the JSON form and KITTI calib.txt to the same camera, which projects the scene onto its image', () => {
    const [json] = parseCalibrationJson({ cameras: [SCENE_CAMERA] });
    const [kitti] = parseKittiCalib(sceneKittiCalib(), [{ name: 'front', projection: 2, width: 640, height: 480 }]);
    expect(kitti!.intrinsics).toEqual(json!.intrinsics);
    kitti!.extrinsics.forEach((v, i) => expect(v).toBeCloseTo(json!.extrinsics[i]!, 9));
    // A point 10 m ahead at the camera's height falls on the principal point; one 1 m left, 50 px left of it.
    expect(projectPoint(json!, { x: 10, y: 0, z: 1.5 })).toEqual({ u: 320, v: 240, depth: 10 });
    expect(projectPoint(json!, { x: 10, y: 1, z: 1.5 })?.u).toBeCloseTo(270, 9);
    expect(projectPoint(json!, { x: -5, y: 0, z: 0 })).toBeUndefined();
    const inv = invert4(json!.extrinsics)!;
    mul4(inv, json!.extrinsics).forEach((v, i) =>
      expect(v).toBeCloseTo([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1][i]!, 9),
    );
  });

  it('refuses a matrix that does not invert and bad numbers, naming the field', () => {
    const flat = { ...SCENE_CAMERA, extrinsics: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] };
    expect(() => parseCalibrationJson({ cameras: [flat] })).toThrow(
      'calibration.cameras[0].extrinsics: the matrix does not invert (its rotation part is singular)',
    );
    expect(() =>
      parseCalibrationJson({ cameras: [{ ...SCENE_CAMERA, intrinsics: { ...SCENE_CAMERA.intrinsics, fx: 0 } }] }),
    ).toThrow('calibration.cameras[0].intrinsics.fx: must be greater than 0');
    expect(() => parseCalibrationJson({ cameras: [SCENE_CAMERA, SCENE_CAMERA] })).toThrow(/appears twice/);
    const singular = sceneKittiCalib().replace(/Tr_velo_to_cam: .*/, 'Tr_velo_to_cam: 0 0 0 0 0 0 0 0 0 0 0 0');
    expect(() => parseKittiCalib(singular, [{ name: 'front', projection: 2, width: 640, height: 480 }])).toThrow(
      /does not invert/,
    );
    expect(() => parseKittiCalib('P2: 1 2 3', [{ name: 'front', projection: 2, width: 640, height: 480 }])).toThrow(
      /no R0_rect line/,
    );
  });
});

describe('cuboids', () => {
  const box = (x: number, y: number, yaw = 0, z = 0) => ({
    center: { x, y, z },
    dimensions: { length: 2, width: 2, height: 2 },
    yaw,
  });
  it('measures 3D IoU of oriented boxes exactly and interpolates yaw along the shortest arc', () => {
    expect(cuboidIoU(box(0, 0), box(0, 0))).toBeCloseTo(1, 12);
    // Half the length shifted: 4 of 12 cubic metres shared.
    expect(cuboidIoU(box(0, 0), box(1, 0))).toBeCloseTo(4 / 12, 12);
    // Half the height shifted.
    expect(cuboidIoU(box(0, 0), box(0, 0, 0, 1))).toBeCloseTo(4 / 12, 12);
    // A square turned 45 degrees inside its own circumcircle: the octagon's area, 8(sqrt 2 - 1).
    const octagon = 8 * (Math.SQRT2 - 1);
    expect(cuboidIoU(box(0, 0), box(0, 0, Math.PI / 4))).toBeCloseTo((octagon * 2) / (16 - octagon * 2), 9);
    expect(cuboidsOverlap(box(0, 0), box(2, 0))).toBe(false);
    expect(cuboidsOverlap(box(0, 0), box(1.9, 0, 0.2))).toBe(true);
    const mid = interpolateCuboid(box(0, 0, 3), box(2, 0, -3), 0.5);
    expect(mid.center.x).toBe(1);
    expect(Math.abs(mid.yaw)).toBeCloseTo(Math.PI, 9);
  });
});
