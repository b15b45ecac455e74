import { labelledShare, type PointLabels } from '../../../../../src/shared/pointcloud/point-labels';
import type { Vec } from '../../core/answer';

/** Which points a lasso labels: those between two heights, and whether labelled points keep their class. */
export interface LassoRule {
  /** Lowest and highest height (z, metres) of the points labelled; unset: no limit. */
  low?: number | undefined;
  high?: number | undefined;
  /** Points already labelled with another class keep it. */
  keep: boolean;
}

/**
 * Gives class `cls` (0: unlabelled) to the points of `positions` whose ground position (x, y)
 * lies inside `polygon` (metres) and which the rule lets through; answers how many changed.
 */
export function labelInside(
  positions: Float32Array,
  labels: Uint8Array,
  polygon: readonly Vec[],
  cls: number,
  rule: LassoRule,
): number {
  const n = polygon.length;
  const xs = Float64Array.from(polygon, (p) => p[0]);
  const ys = Float64Array.from(polygon, (p) => p[1]);
  let [minX, maxX, minY, maxY] = [Infinity, -Infinity, Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    minX = Math.min(minX, xs[i] as number);
    maxX = Math.max(maxX, xs[i] as number);
    minY = Math.min(minY, ys[i] as number);
    maxY = Math.max(maxY, ys[i] as number);
  }
  const low = rule.low ?? -Infinity;
  const high = rule.high ?? Infinity;
  let changed = 0;
  for (let p = 0; p < labels.length; p++) {
    const was = labels[p] as number;
    if (was === cls || (rule.keep && cls !== 0 && was !== 0)) continue;
    const px = positions[p * 3] as number;
    const py = positions[p * 3 + 1] as number;
    const pz = positions[p * 3 + 2] as number;
    if (!(px >= minX && px <= maxX && py >= minY && py <= maxY && pz >= low && pz <= high)) continue;
    let inside = false;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const xi = xs[i] as number;
      const yi = ys[i] as number;
      const xj = xs[j] as number;
      const yj = ys[j] as number;
      if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) inside = !inside;
    }
    if (!inside) continue;
    labels[p] = cls;
    changed++;
  }
  return changed;
}

/** Points per class index (index 0: unlabelled) of a frame's labels. */
export function countClasses(labels: Uint8Array, classes: number): number[] {
  const counts = new Array<number>(classes + 1).fill(0);
  for (let p = 0; p < labels.length; p++) counts[labels[p] as number]! += 1;
  return counts;
}

const percent = (share: number) => `${share.toFixed(1)}%`;

/**
 * Why a submit is refused under the coverage rule (each of the `frames` frames needs `required`
 * percent of its points labelled), in words naming the frames counted from 1; undefined when it holds.
 */
export function coverageRefusal(items: readonly PointLabels[], frames: number, required: number): string | undefined {
  const short: string[] = [];
  for (let page = 0; page < frames; page++) {
    const item = items.find((i) => i.page === page);
    const { labelled, total } = item ? labelledShare(item) : { labelled: 0, total: 0 };
    const share = total > 0 ? (100 * labelled) / total : 0;
    if (share + 1e-9 < required) short.push(`frame ${page + 1} has ${percent(share)} labelled`);
  }
  if (!short.length) return undefined;
  const named = short.length > 3 ? `${short.slice(0, 3).join(', ')} and ${short.length - 3} more` : short.join(', ');
  return `Not submitted: this project asks for at least ${required}% of every frame's points labelled; ${named}.`;
}
