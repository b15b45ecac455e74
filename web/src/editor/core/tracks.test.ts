import { describe, expect, it } from 'vitest';
import type { BoxGeometry } from './answer';
import { fromApi } from './codec';
import {
  answersAt,
  keyframeEntry,
  objectsOnPage,
  setAnswersAt,
  setKeyframe,
  shapeAt,
  tracksOf,
  type Interpolate,
  type Track,
} from './tracks';

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
  it('works out the tracks of an answer once, and again for the answer an edit makes', () => {
    const box = (x: number) => ({ x, y: 0, width: 10, height: 10 });
    const { value } = fromApi(
      {
        tools: [
          { objectId: 'car-1', schemaId: 'car', 'bounding-box': box(30), page: 30, classifications: [] },
          { objectId: 'car-1', schemaId: 'car', 'bounding-box': box(0), page: 0 },
          { objectId: 'car-2', schemaId: 'car', 'bounding-box': box(7), page: 5 },
        ],
      },
      { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box' }] },
    );
    const tracks = tracksOf(value.objects);
    expect(tracksOf(value.objects)).toBe(tracks);
    // The entry whose classifications hold on a page: the keyframe at or before it.
    expect(keyframeEntry(value.objects, 'car-1', 29)?.where?.page).toBe(0);
    expect(keyframeEntry(value.objects, 'car-1', 30)?.where?.page).toBe(30);
    expect(keyframeEntry(value.objects, 'car-2', 4)).toBeUndefined();
    expect(keyframeEntry(value.objects, 'nobody', 4)).toBeUndefined();
    expect(objectsOnPage(value.objects, 15).map((o) => [o.objectId, o.geometry.value])).toEqual([
      ['car-1', box(15)],
      ['car-2', box(7)],
    ]);
    const moved = setKeyframe(value.objects, 'car-2', 10, (entry) => ({
      ...entry,
      geometry: { kind: 'bounding-box', value: box(70) },
    }));
    expect(tracksOf(moved)).not.toBe(tracks);
    expect(
      tracksOf(moved)
        .find((t) => t.objectId === 'car-2')
        ?.keyframes.map((k) => k.page),
    ).toEqual([5, 10]);
    expect(tracksOf(value.objects).find((t) => t.objectId === 'car-2')?.keyframes).toHaveLength(1);
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

describe('frame-specific answers', () => {
  const ids = new Set(['light']);
  const red = { schemaId: 'light', answer: 'red' };
  const rain = { schemaId: 'weather', answer: 'rain' };
  it('answer from their frame on until changed or stopped; whole-video answers stay once', () => {
    const list = [rain, { ...red, page: 10 }, { ...red, page: 20, interpolationStopped: true }];
    expect(answersAt(list, 5, ids)).toEqual([rain]);
    expect(answersAt(list, 15, ids)).toEqual([rain, red]);
    expect(answersAt(list, 25, ids)).toEqual([rain]);
  });
  it('an answer changed on a frame becomes an entry there, a cleared one a stop, a repeated one none', () => {
    const at10 = setAnswersAt([rain], [rain], [rain, red], 10, ids);
    expect(at10).toEqual([rain, { ...red, page: 10 }]);
    expect(setAnswersAt(at10, [rain, red], [rain], 20, ids)).toEqual([
      rain,
      { ...red, page: 10 },
      { ...red, page: 20, interpolationStopped: true },
    ]);
    // Changed on frame 12, then changed back to what frame 11 says: no entry of its own.
    const green = { schemaId: 'light', answer: 'green' };
    const at12 = setAnswersAt(at10, [rain, red], [rain, green], 12, ids);
    expect(at12).toEqual([rain, { ...red, page: 10 }, { ...green, page: 12 }]);
    expect(setAnswersAt(at12, [rain, green], [rain, red], 12, ids)).toEqual(at10);
  });
});
