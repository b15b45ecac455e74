import { describe, expect, it } from 'vitest';
import { expandTrack, framesShown, objectKey, questionKey, valueAt, wireTracks } from '../../src/shared/tracks.js';

const box = (x: number, width = 10) => ({ x, y: 0, width, height: 10 });
const car = (page: number, x: number, extra: Record<string, unknown> = {}) => ({
  objectId: 'car',
  schemaId: 'car-tool',
  'bounding-box': box(x),
  page,
  ...extra,
});

describe('shared tracks', () => {
  it('moves a box linearly between keyframes and holds it after the last', () => {
    const keyframes = [
      { page: 0, value: box(0) },
      { page: 30, value: box(300, 40) },
    ];
    expect(valueAt(keyframes, 15, true)).toEqual({ x: 150, y: 0, width: 25, height: 10 });
    expect(valueAt(keyframes, 15, false)).toEqual(box(0));
    expect(valueAt(keyframes, 99, true)).toEqual(box(300, 40));
  });

  it('expands a track to every frame it is shown on, the stop entry kept and the hidden frames left out', () => {
    const { tracks } = wireTracks(
      [car(10, 100, { interpolationStopped: true }), car(0, 0), car(14, 140), car(5, 50)],
      objectKey,
    );
    const frames = [...expandTrack(tracks[0]!.entries, 16)];
    expect(frames.map((e) => e.page)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14, 15, 16]);
    expect(frames[3]).toMatchObject({ page: 3, interpolated: true, 'bounding-box': box(30) });
    expect(frames[0]).not.toHaveProperty('interpolated');
    expect(frames[10]).toMatchObject({ page: 10, interpolationStopped: true });
    expect(frames[12]).toMatchObject({ page: 15, 'bounding-box': box(140) });
    expect(framesShown(tracks[0]!.entries, 16)).toBe(13);
  });

  it('holds polygons of different vertex counts and shapes of tools that do not interpolate', () => {
    const tri = [
      [0, 0],
      [10, 0],
      [0, 10],
    ];
    const quad = [...tri, [10, 10]];
    const poly = [
      ...expandTrack(
        [
          { polygon: tri, page: 0 },
          { polygon: quad, page: 4 },
        ],
        4,
      ),
    ];
    expect(poly[2]).toMatchObject({ page: 2, polygon: tri });
    const angle = { vertex: [0, 0], p1: [1, 0], p2: [0, 1], angle: 90 };
    const angles = [
      ...expandTrack(
        [
          { angle, page: 0 },
          { angle: { ...angle, angle: 0 }, page: 2 },
        ],
        2,
      ),
    ];
    expect(angles[1]).toMatchObject({ page: 1, angle });
  });

  it('moves segmentation zones vertex by vertex when zones, holes and vertex counts match', () => {
    const square = (x: number, size: number) => [
      [x, 0],
      [x + size, 0],
      [x + size, size],
      [x, size],
    ];
    const zones = (x: number, size: number, holes: number[][][] = []) => ({
      zones: [{ region: square(x, size), holes }],
    });
    const frames = [
      ...expandTrack(
        [
          { segmentation: zones(0, 10, [square(2, 2)]), page: 0 },
          { segmentation: zones(40, 20, [square(44, 4)]), page: 4 },
        ],
        4,
      ),
    ];
    expect(frames[1]).toMatchObject({
      page: 1,
      interpolated: true,
      segmentation: zones(10, 12.5, [square(12.5, 2.5)]),
    });
    expect(frames[4]).toMatchObject({ page: 4, segmentation: zones(40, 20, [square(44, 4)]) });
    // A hole more, a zone more or a vertex more on the later keyframe: the earlier shape holds.
    const held = (later: unknown) =>
      [
        ...expandTrack(
          [
            { segmentation: zones(0, 10), page: 0 },
            { segmentation: later, page: 2 },
          ],
          2,
        ),
      ][1];
    expect(held(zones(40, 20, [square(44, 4)]))).toMatchObject({ page: 1, segmentation: zones(0, 10) });
    expect(held({ zones: [...zones(40, 20).zones, ...zones(80, 5).zones] })).toMatchObject({
      segmentation: zones(0, 10),
    });
    expect(held({ zones: [{ region: [...square(40, 20), [50, -5]], holes: [] }] })).toMatchObject({
      segmentation: zones(0, 10),
    });
  });

  it('groups frame-specific answers by question', () => {
    const { tracks, whole } = wireTracks(
      [
        { schemaId: 'weather', answer: 'sun', page: 0 },
        { schemaId: 'weather', answer: 'rain', page: 3 },
        { schemaId: 'scene', answer: 'road' },
      ],
      questionKey,
    );
    expect(whole).toHaveLength(1);
    expect([...expandTrack(tracks[0]!.entries, 4)].map((e) => e.answer)).toEqual(['sun', 'sun', 'sun', 'rain', 'rain']);
  });
});

describe('point-cloud tracks', () => {
  const cuboid = (x: number, yaw: number, length = 4) => ({
    center: { x, y: 0, z: 0.75 },
    dimensions: { length, width: 2, height: 1.5 },
    yaw,
  });
  const entry = (page: number, shape: Record<string, unknown>, markingTool = 'cuboid') => ({
    objectId: 'car',
    schemaId: 'car',
    tool: 'pct',
    markingTool,
    page,
    ...shape,
  });

  it('moves a cuboid between keyframes, its yaw turning the shorter way round', () => {
    // From 170 to -170 degrees is 20 degrees through 180, not 340 back through 0.
    const deg = Math.PI / 180;
    const frames = [
      ...expandTrack([entry(0, { cuboid: cuboid(0, 170 * deg) }), entry(4, { cuboid: cuboid(8, -170 * deg, 6) })], 4),
    ];
    expect(frames.map((e) => e.page)).toEqual([0, 1, 2, 3, 4]);
    const half = frames[2]!.cuboid as ReturnType<typeof cuboid>;
    expect(frames[2]).toMatchObject({ interpolated: true, markingTool: 'cuboid', tool: 'pct' });
    expect(half.center).toEqual({ x: 4, y: 0, z: 0.75 });
    expect(half.dimensions).toEqual({ length: 5, width: 2, height: 1.5 });
    expect(Math.abs(Math.cos(half.yaw) - Math.cos(Math.PI))).toBeLessThan(1e-12);
    expect(Math.abs(Math.sin(half.yaw))).toBeLessThan(1e-12);
    const quarter = frames[1]!.cuboid as ReturnType<typeof cuboid>;
    expect(quarter.yaw / deg).toBeCloseTo(175, 9);
  });

  it('moves camera rectangles and 3D polylines of equal length, and holds polygons that change vertex count', () => {
    const rect = (x: number) => ({ sensor: 'front', box: { x, y: 10, width: 20, height: 20 } });
    const moved = [...expandTrack([entry(0, rect(0), 'rectangle'), entry(2, rect(40), 'rectangle')], 2)];
    expect(moved[1]).toMatchObject({ page: 1, sensor: 'front', box: { x: 20, y: 10, width: 20, height: 20 } });
    const line = (z: number) => ({
      points: [
        { x: 0, y: 0, z },
        { x: 1, y: 1, z },
      ],
    });
    const lines = [...expandTrack([entry(0, line(0), 'polyline'), entry(2, line(2), 'polyline')], 2)];
    expect((lines[1]!.points as { z: number }[]).map((p) => p.z)).toEqual([1, 1]);
    const tri = {
      points: [
        { x: 0, y: 0, z: 0 },
        { x: 1, y: 0, z: 0 },
        { x: 0, y: 1, z: 0 },
      ],
    };
    const quad = { points: [...tri.points, { x: 1, y: 1, z: 0 }] };
    const held = [...expandTrack([entry(0, tri, 'polygon'), entry(2, quad, 'polygon')], 2)];
    expect(held[1]).toMatchObject({ page: 1, interpolated: true, points: tri.points });
  });
});
