import { describe, expect, it } from 'vitest';
import {
  decodePointLabels,
  encodePointLabels,
  labelledShare,
  readPointLabels,
} from '../../src/shared/pointcloud/point-labels.js';

describe('point labels', () => {
  it('writes runs over the points with only the classes used, and reads them back', () => {
    const labels = Uint8Array.from([0, 0, 2, 2, 2, 0, 3, 3, 0]);
    const item = encodePointLabels(4, labels, ['car', 'road', 'tree']);
    expect(item).toEqual({ page: 4, classes: ['road', 'tree'], runs: [2, 0, 3, 1, 1, 0, 2, 2, 1, 0] });
    expect(decodePointLabels(item, 9, ['car', 'road', 'tree'])).toEqual(labels);
    expect(labelledShare(item)).toEqual({ labelled: 5, total: 9 });
  });

  it('reads stored classes into the reader own order and drops classes it does not know', () => {
    const item = { page: 0, classes: ['tree', 'car'], runs: [1, 1, 2, 2, 1, 0] };
    expect(Array.from(decodePointLabels(item, 4, ['car', 'tree']))).toEqual([2, 1, 1, 0]);
    expect(Array.from(decodePointLabels(item, 4, ['car']))).toEqual([0, 1, 1, 0]);
  });

  it('refuses runs that do not cover the frame', () => {
    expect(() => decodePointLabels({ page: 0, classes: [], runs: [3, 0] }, 4, [])).toThrow(
      'the stored labels cover 3 points; the frame has 4',
    );
  });

  it('writes an empty frame as no runs and a frame of one class as one run', () => {
    expect(encodePointLabels(0, new Uint8Array(0), ['car']).runs).toEqual([]);
    expect(encodePointLabels(0, new Uint8Array(1000).fill(1), ['car'])).toEqual({
      page: 0,
      classes: ['car'],
      runs: [1000, 1],
    });
  });

  it('keeps only well-formed stored items', () => {
    expect(
      readPointLabels([
        { page: 1, classes: ['car'], runs: [2, 1] },
        { page: 'x', classes: [], runs: [] },
        { page: 2, classes: ['car'], runs: [-1, 1] },
        null,
      ]),
    ).toEqual([{ page: 1, classes: ['car'], runs: [2, 1] }]);
    expect(readPointLabels(undefined)).toEqual([]);
  });
});
