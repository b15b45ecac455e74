import { describe, expect, it } from 'vitest';
import angle, { degreesAt } from './angle';

describe('the angle tool', () => {
  it('measures the angle at the vertex between its arms, in degrees', () => {
    expect(degreesAt([0, 0], [4, 0], [0, 3])).toBe(90);
    expect(degreesAt([100, 400], [500, 400], [400, 100])).toBe(45);
    // A 3-4-5 triangle's angle opposite the side of 3: atan(3/4).
    expect(degreesAt([0, 0], [4, 0], [4, 3])).toBeCloseTo((Math.atan2(3, 4) * 180) / Math.PI, 2);
    expect(degreesAt([0, 0], [1, 0], [-1, 0])).toBe(180);
    expect(degreesAt([0, 0], [0, 0], [1, 1])).toBe(0);
  });

  it('is made by three clicks, vertex first, and measured again when a point moves', () => {
    const view = { scale: 1 };
    let step = angle.press(null, [10, 10], view);
    step = angle.press(step.drawing, [50, 10], view);
    expect(step.done).toBeUndefined();
    step = angle.press(step.drawing, [10, 50], view);
    expect(step.done).toEqual({ vertex: [10, 10], p1: [50, 10], p2: [10, 50], angle: 90 });
    const moved = angle.moveVertex?.(step.done!, 2, [50, 50]);
    expect(moved?.angle).toBe(45);
  });
});
