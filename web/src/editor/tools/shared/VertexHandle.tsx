import type { KonvaEventObject } from 'konva/lib/Node';
import { Circle } from 'react-konva';
import type { Vec } from '../../core/answer';
import { px } from './shape-props';

export interface VertexHandleProps {
  /** The object's id and the vertex's index: the handle's name (`vertex-<id>-<index>`), which tests and picks read. */
  objectId: string;
  index: number;
  at: Vec;
  color: string;
  scale: number;
  /** While it is dragged, where it is now (the outline follows it). */
  onMove(to: Vec): void;
  /** Let go: where it ended (the answer changes once, here). */
  onDrop(to: Vec): void;
  /** A press on it (its own press never reaches the object under it). */
  onPress?(e: KonvaEventObject<MouseEvent>): void;
}

/** A selected shape's draggable vertex, the same size on the screen at any zoom. */
export function VertexHandle(props: VertexHandleProps) {
  const [x, y] = props.at;
  const where = (e: KonvaEventObject<DragEvent>): Vec => [e.target.x(), e.target.y()];
  return (
    <Circle
      name={`vertex vertex-${props.objectId}-${props.index}`}
      x={x}
      y={y}
      radius={px(5, props.scale)}
      fill="#fff"
      stroke={props.color}
      strokeWidth={2}
      strokeScaleEnabled={false}
      draggable
      onMouseDown={(e) => {
        e.cancelBubble = true;
        props.onPress?.(e);
      }}
      onDragMove={(e) => props.onMove(where(e))}
      onDragEnd={(e) => props.onDrop(where(e))}
    />
  );
}
