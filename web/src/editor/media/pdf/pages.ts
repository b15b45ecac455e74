import type { Vec } from '../../core/answer';

/** Space between two pages, in screen pixels. */
export const PAGE_GAP = 16;
/** Pages drawn beyond the view on each side: scrolling a little never shows a blank page. */
const AHEAD = 1;

/** Where each page starts in the scrolled column, at this scale. */
export function pageTops(sizes: readonly Vec[], scale: number): number[] {
  const tops: number[] = [];
  let y = PAGE_GAP;
  for (const [, h] of sizes) {
    tops.push(y);
    y += h * scale + PAGE_GAP;
  }
  return tops;
}

/** The page under a height of the column (the last whose top is above it). */
export function pageAt(tops: readonly number[], y: number): number {
  let lo = 0;
  let hi = tops.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((tops[mid] as number) <= y) lo = mid;
    else hi = mid - 1;
  }
  return Math.max(0, lo);
}

/** The pages to draw for a view of the column: those it shows, and one more on each side. */
export function visiblePages(tops: readonly number[], scrollTop: number, height: number): number[] {
  if (!tops.length) return [];
  const first = pageAt(tops, scrollTop);
  let last = first;
  while (last + 1 < tops.length && (tops[last + 1] as number) < scrollTop + height) last++;
  const from = Math.max(0, first - AHEAD);
  const to = Math.min(tops.length - 1, last + AHEAD);
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
