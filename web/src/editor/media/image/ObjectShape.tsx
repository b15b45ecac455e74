import { memo } from 'react';
import type { ShapeProps } from '../../core/tool';
import { planeTool } from '../../core/tools';

/**
 * The selected object, drawn in image pixels by its own tool (tools/<kind>/) with its handles.
 * Memoised: panning re-renders the canvas, not the shape.
 */
export const ObjectShape = memo(function ObjectShape(props: ShapeProps) {
  const tool = planeTool(props.object.geometry.kind);
  return tool ? <tool.Shape {...props} /> : null;
});
