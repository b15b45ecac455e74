import { describe, expect, it } from 'vitest';
import { parseNrrdHeader } from '../../../../../src/shared/nrrd';
import { renderSlice, type Samples, type Volume } from './volume';
import { VoxelLayer } from './voxels';

/** A volume of 3 x 2 x 2 whose stored samples are `data`, read through slope and intercept. */
const volumeOf = (data: Samples, slope: number, intercept: number): Volume => ({
  width: 3,
  height: 2,
  depth: 2,
  data,
  slope,
  intercept,
  spacing: [1, 1, 1],
  windows: [],
  tags: [],
});

/** The greys a slice is drawn with (the red of each RGBA pixel). */
function greys(v: Volume, plane: 'axial' | 'coronal', index: number, width: number, height: number): number[] {
  const out = { data: new Uint8ClampedArray(width * height * 4), width, height } as unknown as ImageData;
  renderSlice(v, plane, index, { name: 'test', center: 0, width: 200 }, out);
  return Array.from({ length: width * height }, (_, i) => out.data[i * 4]!);
}

describe('a volume kept in its stored type', () => {
  const stored = [-1024, 924, 1024, 1074, 1124, 2000, 0, 1000, 1024, 1048, 1100, 1500];
  // The same values as numbers after the rescale (value = sample + -1024).
  const values = Float32Array.from(stored, (s) => s - 1024);

  it('draws the greys of the values the rescale gives, on every plane', () => {
    for (const [plane, index, w, h] of [
      ['axial', 1, 3, 2],
      ['coronal', 0, 3, 2],
    ] as const) {
      const asNumbers = greys(volumeOf(values, 1, 0), plane, index, w, h);
      expect(greys(volumeOf(Int16Array.from(stored), 1, -1024), plane, index, w, h)).toEqual(asNumbers);
    }
    // Below the window black, above it white, between a ramp: 0 HU is the window's middle grey.
    expect(greys(volumeOf(values, 1, 0), 'axial', 0, 3, 2)).toEqual([0, 0, 127, 191, 255, 255]);
  });

  it('reads unsigned samples with a slope', () => {
    const u = Uint16Array.from([0, 50, 100, 150, 200, 250, 0, 0, 0, 0, 0, 0]);
    const asNumbers = Float32Array.from(u, (s) => s * 2 - 200);
    expect(greys(volumeOf(u, 2, -200), 'axial', 0, 3, 2)).toEqual(greys(volumeOf(asNumbers, 1, 0), 'axial', 0, 3, 2));
  });
});

describe('the voxel layer', () => {
  const red = '#ff0000';

  it('holds a byte a voxel while every class number fits one, and saves them as uint8', async () => {
    const layer = new VoxelLayer(5, 3, 3, [{ value: 7, color: red }]);
    expect(layer.voxels).toBeInstanceOf(Uint8Array);
    expect(layer.empty()).toBe(true);
    // The last voxel (past the last whole group of four bytes) alone.
    layer.voxels[44] = 7;
    expect(layer.empty()).toBe(false);
    const file = new Uint8Array(await (await layer.toBlob()).arrayBuffer());
    const header = parseNrrdHeader(file);
    expect(header.type).toBe('uint8');
    expect(header.sizes).toEqual([5, 3, 3]);
  });

  it('holds two bytes a voxel for class numbers above 255', () => {
    const layer = new VoxelLayer(2, 2, 2, [{ value: 300, color: red }]);
    expect(layer.voxels).toBeInstanceOf(Uint16Array);
    layer.voxels[7] = 300;
    expect(layer.empty()).toBe(false);
  });
});
