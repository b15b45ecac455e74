import { boxFromCorners, isDegenerate } from './geometry';
import type { DrawableKind, Geometry, Vec } from './types';

/**
 * What a drawing gesture has so far, as a pure state machine the canvas feeds with pointer
 * events in image pixels. Boxes are dragged; polygons and polylines are clicked vertex by vertex
 * and finished by clicking the first vertex (polygon), double-clicking or Enter; points are one
 * click. Escape cancels.
 */
export type Drawing =
  | { kind: 'idle' }
  | { kind: 'box'; tool: 'bounding-box' | 'rotated-bounding-box'; start: Vec; current: Vec }
  | { kind: 'path'; tool: 'polygon' | 'polyline'; points: Vec[]; current: Vec };

export const IDLE: Drawing = { kind: 'idle' };

export interface Step {
  drawing: Drawing;
  /** A finished shape to add to the answer. */
  done?: Geometry;
}

/** Smallest box kept, in screen pixels (a click is not a box). */
export const MIN_BOX_SCREEN_PX = 4;
/** How near (screen pixels) a click must be to the first vertex to close a polygon. */
export const CLOSE_DISTANCE_SCREEN_PX = 8;

function finishBox(d: Extract<Drawing, { kind: 'box' }>, scale: number): Step {
  const box = boxFromCorners(d.start, d.current);
  const g: Geometry =
    d.tool === 'bounding-box'
      ? { kind: 'bounding-box', value: box }
      : { kind: 'rotated-bounding-box', value: { ...box, rotation: 0 } };
  return isDegenerate(g, MIN_BOX_SCREEN_PX / scale) ? { drawing: IDLE } : { drawing: IDLE, done: g };
}

export function finishPath(d: Drawing): Step {
  if (d.kind !== 'path') return { drawing: d };
  const g: Geometry = { kind: d.tool, value: d.points };
  return isDegenerate(g, 0) ? { drawing: d } : { drawing: IDLE, done: g };
}

export function pointerDown(d: Drawing, tool: DrawableKind, p: Vec, scale: number): Step {
  switch (tool) {
    case 'point':
      return { drawing: IDLE, done: { kind: 'point', value: p } };
    case 'bounding-box':
    case 'rotated-bounding-box':
      return { drawing: { kind: 'box', tool, start: p, current: p } };
    case 'polygon':
    case 'polyline': {
      if (d.kind !== 'path') return { drawing: { kind: 'path', tool, points: [p], current: p } };
      const first = d.points[0];
      if (
        tool === 'polygon' &&
        first &&
        d.points.length >= 3 &&
        Math.hypot(p[0] - first[0], p[1] - first[1]) * scale <= CLOSE_DISTANCE_SCREEN_PX
      ) {
        return finishPath(d);
      }
      return { drawing: { ...d, points: [...d.points, p], current: p } };
    }
    case 'ner':
      return { drawing: d };
  }
}

export function pointerMove(d: Drawing, p: Vec): Drawing {
  return d.kind === 'idle' ? d : { ...d, current: p };
}

export function pointerUp(d: Drawing, p: Vec, scale: number): Step {
  if (d.kind !== 'box') return { drawing: d };
  return finishBox({ ...d, current: p }, scale);
}

/** Drops the last vertex of a path being drawn (Backspace while drawing). */
export function dropLastVertex(d: Drawing): Drawing {
  if (d.kind !== 'path') return d;
  return d.points.length <= 1 ? IDLE : { ...d, points: d.points.slice(0, -1) };
}
