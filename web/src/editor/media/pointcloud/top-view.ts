import type { Vec } from '../../core/answer';

/**
 * The top view of a point cloud's frame: the ground seen from above, x (forward) up the screen,
 * y (left) to the left. `scale` is screen pixels per metre; (cx, cy) the ground point at the
 * middle of a view `width` by `height` pixels.
 */
export interface TopView {
  scale: number;
  cx: number;
  cy: number;
  width: number;
  height: number;
}

/** Where a ground point (metres: x, y) is on the screen. */
export function topToScreen(v: TopView, [x, y]: Vec): Vec {
  return [v.width / 2 - (y - v.cy) * v.scale, v.height / 2 - (x - v.cx) * v.scale];
}

/** The ground point under a screen point. */
export function topToGround(v: TopView, [sx, sy]: Vec): Vec {
  return [v.cx - (sy - v.height / 2) / v.scale, v.cy - (sx - v.width / 2) / v.scale];
}

/** The view zoomed by `factor` about a screen point, which stays over the same ground point. */
export function zoomTopAt(v: TopView, at: Vec, factor: number): TopView {
  const ground = topToGround(v, at);
  const scale = Math.min(400, Math.max(0.5, v.scale * factor));
  const next = { ...v, scale };
  const moved = topToGround(next, at);
  return { ...next, cx: next.cx + ground[0] - moved[0], cy: next.cy + ground[1] - moved[1] };
}

/** The view panned by a screen vector. */
export function panTop(v: TopView, dx: number, dy: number): TopView {
  return { ...v, cx: v.cx + dy / v.scale, cy: v.cy + dx / v.scale };
}

/** A view of a ground rectangle fitted into a screen area (with a margin). */
export function fitTop(minX: number, maxX: number, minY: number, maxY: number, width: number, height: number): TopView {
  const spanX = Math.max(1, maxX - minX);
  const spanY = Math.max(1, maxY - minY);
  const scale = Math.min(height / spanX, width / spanY) * 0.9;
  return { scale, cx: (minX + maxX) / 2, cy: (minY + maxY) / 2, width, height };
}
