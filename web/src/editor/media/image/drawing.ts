import type { DrawableKind, Geometry, Vec } from '../../core/answer';
import type { PlaneTool } from '../../core/tool';
import { planeTool } from '../../core/tools';

/**
 * The gesture under way on the image, as a pure state machine the canvas feeds with pointer
 * events in image pixels: which tool draws, and that tool's own state of the gesture. What a
 * press, a drag or a release does is the tool's (tools/<kind>/); Escape cancels.
 */
export type Drawing = { kind: 'idle' } | { kind: 'drawing'; tool: PlaneTool; state: unknown };

export const IDLE: Drawing = { kind: 'idle' };

export interface Step {
  drawing: Drawing;
  /** A finished shape to add to the answer. */
  done?: Geometry;
}

function stepOf(tool: PlaneTool, step: { drawing: unknown; done?: unknown }): Step {
  const drawing: Drawing = step.drawing === null ? IDLE : { kind: 'drawing', tool, state: step.drawing };
  return step.done === undefined ? { drawing } : { drawing, done: { kind: tool.kind, value: step.done } as Geometry };
}

export function pointerDown(d: Drawing, kind: DrawableKind, p: Vec, scale: number): Step {
  const tool = planeTool(kind);
  if (!tool) return { drawing: d };
  const state = d.kind === 'drawing' && d.tool === tool ? d.state : null;
  return stepOf(tool, tool.press(state, p, { scale }));
}

export function pointerMove(d: Drawing, p: Vec): Drawing {
  return d.kind === 'idle' ? d : { ...d, state: d.tool.drag(d.state, p) };
}

export function pointerUp(d: Drawing, p: Vec, scale: number): Step {
  if (d.kind === 'idle') return { drawing: d };
  return stepOf(d.tool, d.tool.release(d.state, p, { scale }));
}

/** Finishes a gesture of many presses (Enter, a double click); unchanged for other gestures. */
export function finishDrawing(d: Drawing): Step {
  if (d.kind === 'idle' || !d.tool.finish) return { drawing: d };
  return stepOf(d.tool, d.tool.finish(d.state));
}

/** Drops the last press of a gesture (Backspace); undefined when the gesture has none to drop. */
export function dropLastPress(d: Drawing): Drawing | undefined {
  if (d.kind === 'idle' || !d.tool.dropLast) return undefined;
  const state = d.tool.dropLast(d.state);
  return state === null ? IDLE : { ...d, state };
}
