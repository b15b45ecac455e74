import { Circle } from 'react-konva';
import type { Vec } from '../../core/answer';
import { round, roundVec } from '../../core/plane';
import type { PlaneTool, ShapeProps } from '../../core/tool';
import { outlineProps, px } from '../shared/shape-props';

declare module '../../core/answer' {
  interface GeometryKinds {
    /** One point of the medium. */
    point: Vec;
  }
}

const isVec = (v: unknown): v is Vec =>
  Array.isArray(v) && v.length >= 2 && typeof v[0] === 'number' && typeof v[1] === 'number';

function Shape(props: ShapeProps) {
  const { object, color, scale, selected, editable, onChange } = props;
  const [x, y] = (object.geometry as { value: Vec }).value;
  return (
    <Circle
      {...outlineProps(props)}
      x={x}
      y={y}
      radius={px(selected ? 7 : 5, scale)}
      fill={color}
      stroke="#fff"
      draggable={editable && selected}
      onDragEnd={(e) => {
        const node = e.target;
        onChange(object.objectId, { kind: 'point', value: [round(node.x()), round(node.y())] });
      }}
    />
  );
}

/** A point: one click places it; a drag of the selected point moves it. */
const point: PlaneTool<'point', never> = {
  kind: 'point',
  name: 'Point',
  space: 'plane',
  read: (raw) => (isVec(raw) ? [raw[0], raw[1]] : null),
  write: (value) => value,
  outline: (value) => [value],
  hit(value, at, tolerance) {
    const d = Math.hypot(at[0] - value[0], at[1] - value[1]);
    return d <= tolerance ? { edge: true, measure: d } : undefined;
  },
  move: ([x, y], [dx, dy]) => roundVec([x + dx, y + dy]),
  degenerate: () => false,
  moveVertex: (_value, _index, to) => roundVec(to),
  press: (_drawing, at) => ({ drawing: null, done: at }),
  drag: (drawing) => drawing,
  release: (drawing) => ({ drawing }),
  trace(paths, [x, y], radius) {
    paths.dots.moveTo(x + radius, y);
    paths.dots.arc(x, y, radius, 0, Math.PI * 2);
  },
  Shape,
  Preview: () => null,
};

export default point;
