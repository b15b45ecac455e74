import type { KonvaEventObject } from 'konva/lib/Node';
import type { ShapeProps } from '../../core/tool';

/** Screen-constant sizes: geometry lives in medium units inside a scaled group. */
export const px = (n: number, scale: number) => n / scale;

/** The colour a gesture under way is previewed in. */
export const PREVIEW_COLOR = '#111';

/** The konva props every selected shape shares: outline, name (tests and picks read it), selection. */
export function outlineProps({ object, color, selected, editable, onSelect }: ShapeProps) {
  const id = object.objectId;
  return {
    stroke: color,
    strokeWidth: selected ? 3 : 2,
    strokeScaleEnabled: false,
    // Fill and stroke drawn straight onto the layer: no offscreen buffer per shape.
    perfectDrawEnabled: false,
    name: `object object-${id}`,
    onMouseDown: (e: KonvaEventObject<MouseEvent>) => {
      if (!editable) return;
      e.cancelBubble = true;
      onSelect(id);
    },
    onTap: () => editable && onSelect(id),
  };
}
