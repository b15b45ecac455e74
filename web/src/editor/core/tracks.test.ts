import { describe, expect, it } from 'vitest';
import type { BoxGeometry } from './answer';
import { fromApi } from './codec';
import { shapeAt, tracksOf, type Interpolate, type Track } from './tracks';

const lerp: Interpolate<'bounding-box'> = (a: BoxGeometry, b: BoxGeometry, t) => ({
  x: a.x + (b.x - a.x) * t,
  y: a.y + (b.y - a.y) * t,
  width: a.width + (b.width - a.width) * t,
  height: a.height + (b.height - a.height) * t,
});

const track: Track<'bounding-box'> = {
  objectId: 'car-1',
  schemaId: 'car',
  kind: 'bounding-box',
  keyframes: [
    { page: 10, value: { x: 0, y: 0, width: 10, height: 10 } },
    { page: 20, value: { x: 100, y: 50, width: 30, height: 10 } },
    { page: 30, value: { x: 100, y: 50, width: 30, height: 10 }, hidden: true },
  ],
};

describe('tracks', () => {
  it('holds keyframes, blends between them, and is absent before the first and once hidden', () => {
    expect(shapeAt(track, 5, lerp)).toBeNull();
    expect(shapeAt(track, 10, lerp)?.value).toEqual({ x: 0, y: 0, width: 10, height: 10 });
    expect(shapeAt(track, 15, lerp)?.value).toEqual({ x: 50, y: 25, width: 20, height: 10 });
    expect(shapeAt(track, 25, lerp)?.value).toEqual({ x: 100, y: 50, width: 30, height: 10 });
    expect(shapeAt(track, 31, lerp)).toBeNull();
  });
  it('holds the earlier keyframe when the tool has no blend', () => {
    expect(shapeAt(track, 19)?.value).toEqual({ x: 0, y: 0, width: 10, height: 10 });
  });
  it('groups the keyframe entries on the wire of one object into its track, in page order', () => {
    const box = (x: number) => ({ x, y: 0, width: 10, height: 10 });
    const { value } = fromApi(
      {
        tools: [
          { objectId: 'car-1', schemaId: 'car', 'bounding-box': box(20), page: 20 },
          { objectId: 'car-1', schemaId: 'car', 'bounding-box': box(0), page: 10 },
          { objectId: 'car-1', schemaId: 'car', 'bounding-box': box(20), page: 30, interpolationStopped: true },
          { objectId: 'sign', schemaId: 'car', 'bounding-box': box(5) },
        ],
      },
      { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box' }] },
    );
    expect(tracksOf(value.objects)).toEqual([
      {
        objectId: 'car-1',
        schemaId: 'car',
        kind: 'bounding-box',
        keyframes: [
          { page: 10, value: box(0) },
          { page: 20, value: box(20) },
          { page: 30, value: box(20), hidden: true },
        ],
      },
    ]);
  });
});
