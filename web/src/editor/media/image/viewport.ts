import type { Vec } from '../../core/answer';

/**
 * Image pixels <-> screen pixels, the one place the editor converts between them:
 * screen = image * scale + offset.
 */
export interface Viewport {
  scale: number;
  offsetX: number;
  offsetY: number;
}

export const MIN_SCALE = 0.02;
export const MAX_SCALE = 40;

const clampScale = (s: number) => Math.min(MAX_SCALE, Math.max(MIN_SCALE, s));

export function toScreen(v: Viewport, [x, y]: Vec): Vec {
  return [x * v.scale + v.offsetX, y * v.scale + v.offsetY];
}

export function toImage(v: Viewport, [x, y]: Vec): Vec {
  return [(x - v.offsetX) / v.scale, (y - v.offsetY) / v.scale];
}

/** The whole image centred in the view with a small margin. */
export function fitViewport(imageW: number, imageH: number, viewW: number, viewH: number, margin = 16): Viewport {
  if (imageW <= 0 || imageH <= 0 || viewW <= 0 || viewH <= 0) return { scale: 1, offsetX: 0, offsetY: 0 };
  const scale = clampScale(Math.min((viewW - 2 * margin) / imageW, (viewH - 2 * margin) / imageH));
  return { scale, offsetX: (viewW - imageW * scale) / 2, offsetY: (viewH - imageH * scale) / 2 };
}

/** Zooms by `factor` keeping the image point under `screenPoint` where it is. */
export function zoomAt(v: Viewport, screenPoint: Vec, factor: number): Viewport {
  const scale = clampScale(v.scale * factor);
  const [ix, iy] = toImage(v, screenPoint);
  return { scale, offsetX: screenPoint[0] - ix * scale, offsetY: screenPoint[1] - iy * scale };
}

export function panBy(v: Viewport, dx: number, dy: number): Viewport {
  return { ...v, offsetX: v.offsetX + dx, offsetY: v.offsetY + dy };
}

/** A wheel's deltaY as a zoom factor: smooth for trackpads, one notch of a mouse ~ 10 %. */
export function wheelFactor(deltaY: number): number {
  return Math.exp(-deltaY * 0.001);
}
