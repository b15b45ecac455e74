import { describe, expect, it } from 'vitest';
import { fitCuboid, minAreaRect, cuboidsOverlap, type Cuboid } from '../../src/shared/pointcloud/cuboid.js';

/*
 * Cuboids of a point cloud, as the 3D editor and the server share them: one fitted to a box of
 * points standing on the ground, the smallest rectangle around points, and overlap.
 */

describe('cuboids', () => {
  const box: Cuboid = {
    center: { x: 10, y: -2, z: -0.9 },
    dimensions: { length: 4, width: 1.8, height: 1.6 },
    yaw: 0.6,
  };

  it('fits a box of points standing on the ground: centre, extents and heading', () => {
    const pts: number[] = [];
    for (let x = 0; x < 20; x += 0.25) for (let y = -8; y < 8; y += 0.25) pts.push(x, y, -1.7);
    const [cos, sin] = [Math.cos(box.yaw), Math.sin(box.yaw)];
    for (let z = -1.65; z <= -0.1; z += 0.1) {
      for (let u = -2; u <= 2.0001; u += 0.1) {
        for (const v of [-0.9, 0.9]) pts.push(10 + u * cos - v * sin, -2 + u * sin + v * cos, z);
      }
      for (let v = -0.9; v <= 0.9001; v += 0.1) {
        for (const u of [-2, 2]) pts.push(10 + u * cos - v * sin, -2 + u * sin + v * cos, z);
      }
    }
    const fit = fitCuboid(new Float32Array(pts), 10.5, -1.5)!;
    expect(fit.center.x).toBeCloseTo(10, 1);
    expect(fit.center.y).toBeCloseTo(-2, 1);
    expect(fit.dimensions.length).toBeCloseTo(4, 1);
    expect(fit.dimensions.width).toBeCloseTo(1.8, 1);
    expect(Math.abs(fit.yaw - box.yaw)).toBeLessThan(0.01);
    expect(fitCuboid(new Float32Array(pts), 2, 6)).toBeUndefined();
    const preset = fitCuboid(new Float32Array(pts), 10, -2, { preset: { length: 5, height: 2 } })!;
    expect(preset.dimensions).toMatchObject({ length: 5, height: 2 });
  });

  it('finds the smallest rectangle around points whatever their order', () => {
    const r = minAreaRect([
      [0, 0],
      [4, 0],
      [4, 2],
      [0, 2],
      [2, 1],
    ]);
    expect(r).toMatchObject({ cx: 2, cy: 1, length: 4, width: 2 });
    expect(r.yaw).toBeCloseTo(0, 6);
  });

  it('tells overlapping cuboids from touching and separate ones', () => {
    const moved = (dx: number, dz = 0) => ({
      ...box,
      center: { ...box.center, x: box.center.x + dx, z: box.center.z + dz },
    });
    expect(cuboidsOverlap(box, moved(1))).toBe(true);
    expect(cuboidsOverlap(box, moved(6))).toBe(false);
    expect(cuboidsOverlap(box, moved(1, 1.6))).toBe(false);
    const side = { ...box, yaw: 0, center: { ...box.center, x: 0 } };
    expect(cuboidsOverlap(side, { ...side, center: { ...side.center, x: 4 } })).toBe(false);
  });
});
