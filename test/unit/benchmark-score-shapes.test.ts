import { describe, expect, it } from 'vitest';
import type { CategorySchema } from '../../src/schemas/category-schema.js';
import { scoreBenchmark } from '../../src/workflow/consensus/benchmark-score.js';
import { objectSimilarity } from '../../src/workflow/consensus/similarity.js';
import type { TaskAnswer } from '../../src/workflow/types.js';

/*
 * Benchmark scores of the shapes beyond boxes, on hand-made answers with hand-computed figures:
 * points as the API keeps them ([x, y]), polylines by their mean distance to each other, and
 * segmentation zones by the IoU of their areas with holes cut out.
 */

const square = (x: number, y: number, side: number) => [
  [x, y],
  [x + side, y],
  [x + side, y + side],
  [x, y + side],
];
const zone = (region: number[][], holes: number[][][] = []) => ({ segmentation: { zones: [{ region, holes }] } });
const answer = (tools: Record<string, unknown>[]): TaskAnswer =>
  ({ tools, classifications: [], relations: [] }) as unknown as TaskAnswer;

describe('benchmark scores of points, polylines and zones', () => {
  it('scores points given as [x, y] by their distance', () => {
    const schema = { tools: [{ schemaId: 'pin', title: 'Pin', tool: 'point' }] } as unknown as CategorySchema;
    const ref = answer([{ schemaId: 'pin', point: [100, 100] }]);
    expect(scoreBenchmark(answer([{ schemaId: 'pin', point: [100, 100] }]), ref, schema).score).toBe(100);
    expect(scoreBenchmark(answer([{ schemaId: 'pin', point: [106, 108] }]), ref, schema).score).toBe(50);
    expect(scoreBenchmark(answer([{ schemaId: 'pin', point: [200, 100] }]), ref, schema).score).toBe(0);
  });

  it('scores polylines by how far each one runs from the other', () => {
    const line = {
      polyline: [
        [0, 0],
        [100, 0],
      ],
    };
    // The same line with a vertex more: distance 0 everywhere.
    expect(
      objectSimilarity('polyline', line, {
        polyline: [
          [0, 0],
          [50, 0],
          [100, 0],
        ],
      }),
    ).toBe(1);
    // Ten pixels lower all along: 1 - 10 / 20.
    expect(
      objectSimilarity('polyline', line, {
        polyline: [
          [0, 10],
          [100, 10],
        ],
      }),
    ).toBeCloseTo(0.5, 10);
    expect(
      objectSimilarity('polyline', line, {
        polyline: [
          [0, 50],
          [100, 50],
        ],
      }),
    ).toBe(0);
    expect(objectSimilarity('polyline', line, { polyline: [[0, 0]] })).toBe(0);
  });

  it('scores zones by the IoU of their areas, holes cut out', () => {
    const holed = zone(square(0, 0, 10), [square(4, 4, 2)]);
    expect(objectSimilarity('segmentation', holed, holed)).toBeCloseTo(1, 10);
    // The same square without its hole: 96 shared of 100.
    expect(objectSimilarity('segmentation', holed, zone(square(0, 0, 10)))).toBeCloseTo(0.96, 10);
    // Shifted by half its width: 50 shared of 150.
    expect(objectSimilarity('segmentation', zone(square(0, 0, 10)), zone(square(5, 0, 10)))).toBeCloseTo(1 / 3, 10);
    expect(objectSimilarity('segmentation', zone(square(0, 0, 10)), zone(square(50, 50, 10)))).toBe(0);
    expect(
      objectSimilarity('segmentation', zone(square(0, 0, 10)), { segmentation: { zones: [{ region: [[0, 0]] }] } }),
    ).toBe(0);

    const schema = { tools: [{ schemaId: 'road', title: 'Road', tool: 'segmentation' }] } as unknown as CategorySchema;
    const got = scoreBenchmark(
      answer([{ schemaId: 'road', objectId: 'a', ...zone(square(5, 0, 10)) }]),
      answer([{ schemaId: 'road', objectId: 'r', ...zone(square(0, 0, 10)) }]),
      schema,
    );
    expect(got.score).toBeCloseTo(100 / 3, 2);
    expect(got.items[0]?.objects).toEqual([{ referenceId: 'r', objectId: 'a', similarity: expect.closeTo(1 / 3, 10) }]);
  });
});
