import { useState } from 'react';
import { Group, Line, Text } from 'react-konva';
import type { Vec } from '../../core/answer';
import { outlineHit, pathThrough, round, roundVec } from '../../core/plane';
import type { PlaneTool, ShapeProps } from '../../core/tool';
import { outlineProps, PREVIEW_COLOR, px } from '../shared/shape-props';
import { VertexHandle } from '../shared/VertexHandle';

/** An angle measured at `vertex` between its arms to `p1` and `p2`, in degrees (0 to 180). */
export interface AngleGeometry {
  vertex: Vec;
  p1: Vec;
  p2: Vec;
  angle: number;
}

declare module '../../core/answer' {
  interface GeometryKinds {
    angle: AngleGeometry;
  }
}

const isVec = (v: unknown): v is Vec =>
  Array.isArray(v) && v.length >= 2 && typeof v[0] === 'number' && typeof v[1] === 'number';
const isRec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const flat = (points: Vec[]) => points.flatMap(([x, y]) => [x, y]);

/** The angle at `vertex` between the arms, in degrees to the hundredth (0 when an arm has no length). */
export function degreesAt(vertex: Vec, p1: Vec, p2: Vec): number {
  const a: Vec = [p1[0] - vertex[0], p1[1] - vertex[1]];
  const b: Vec = [p2[0] - vertex[0], p2[1] - vertex[1]];
  const la = Math.hypot(...a);
  const lb = Math.hypot(...b);
  if (la === 0 || lb === 0) return 0;
  const cos = Math.max(-1, Math.min(1, (a[0] * b[0] + a[1] * b[1]) / (la * lb)));
  return round((Math.acos(cos) * 180) / Math.PI);
}

const make = (vertex: Vec, p1: Vec, p2: Vec): AngleGeometry => ({ vertex, p1, p2, angle: degreesAt(vertex, p1, p2) });
/** Its points in drawing order: first arm, vertex, second arm (vertex index 1). */
const outline = (v: AngleGeometry): Vec[] => [v.p1, v.vertex, v.p2];
const fromOutline = ([p1, vertex, p2]: Vec[]) => make(vertex as Vec, p1 as Vec, p2 as Vec);

/** Clicks so far: the vertex, then the first arm; `current` follows the pointer. */
interface AngleClicks {
  points: Vec[];
  current: Vec;
}

function Label({ value, color, scale }: { value: AngleGeometry; color: string; scale: number }) {
  return (
    <Text
      x={value.vertex[0] + px(8, scale)}
      y={value.vertex[1] + px(8, scale)}
      text={`${value.angle.toFixed(1)}°`}
      fontSize={px(14, scale)}
      fill={color}
      listening={false}
    />
  );
}

function Shape(props: ShapeProps) {
  const [live, setLive] = useState<AngleGeometry | null>(null);
  const { object, color, scale, selected, editable, onChange } = props;
  const value = live ?? (object.geometry as { value: AngleGeometry }).value;
  const stored = (object.geometry as { value: AngleGeometry }).value;
  const moved = (i: number, to: Vec) => fromOutline(outline(stored).map((p, j) => (j === i ? roundVec(to) : p)));
  return (
    <Group>
      <Line {...outlineProps(props)} points={flat(outline(value))} hitStrokeWidth={px(10, scale)} />
      <Label value={value} color={color} scale={scale} />
      {selected &&
        editable &&
        outline(value).map((at, i) => (
          <VertexHandle
            key={i}
            objectId={object.objectId}
            index={i}
            at={at}
            color={color}
            scale={scale}
            onMove={(to) => setLive(moved(i, to))}
            onDrop={(to) => {
              setLive(null);
              onChange(object.objectId, { kind: 'angle', value: moved(i, to) });
            }}
          />
        ))}
    </Group>
  );
}

/**
 * An angle: three clicks, the vertex first and then the end of each arm; it is measured as it is
 * drawn and shown in degrees beside the vertex. Selected, each of the three points has a handle.
 */
const angle: PlaneTool<'angle', AngleClicks> = {
  kind: 'angle',
  name: 'Angle',
  space: 'plane',
  read(raw) {
    if (!isRec(raw) || !isVec(raw.vertex) || !isVec(raw.p1) || !isVec(raw.p2)) return null;
    const v = make([raw.vertex[0], raw.vertex[1]], [raw.p1[0], raw.p1[1]], [raw.p2[0], raw.p2[1]]);
    return typeof raw.angle === 'number' ? { ...v, angle: raw.angle } : v;
  },
  write: (value) => value,
  outline,
  hit: (value, at, tolerance) => outlineHit(outline(value), false, at, tolerance),
  move: (value, [dx, dy]) => fromOutline(outline(value).map(([x, y]) => roundVec([x + dx, y + dy]))),
  degenerate: (value, minSize) =>
    Math.hypot(value.p1[0] - value.vertex[0], value.p1[1] - value.vertex[1]) < minSize ||
    Math.hypot(value.p2[0] - value.vertex[0], value.p2[1] - value.vertex[1]) < minSize,
  moveVertex: (value, index, to) => fromOutline(outline(value).map((p, i) => (i === index ? roundVec(to) : p))),
  press(drawing, at) {
    const points = [...(drawing?.points ?? []), roundVec(at)];
    if (points.length < 3) return { drawing: { points, current: at } };
    const [vertex, p1, p2] = points as [Vec, Vec, Vec];
    return { drawing: null, done: make(vertex, p1, p2) };
  },
  drag: (drawing, at) => ({ ...drawing, current: at }),
  release: (drawing) => ({ drawing }),
  dropLast: (drawing) => (drawing.points.length <= 1 ? null : { ...drawing, points: drawing.points.slice(0, -1) }),
  trace(paths, value) {
    paths.stroke.addPath(pathThrough(outline(value), false));
  },
  Shape,
  Preview: ({ drawing, scale }) => {
    const [vertex, p1] = drawing.points;
    const arms: Vec[] = p1 ? [p1, vertex as Vec, drawing.current] : [vertex as Vec, drawing.current];
    return (
      <Group listening={false}>
        <Line points={flat(arms)} stroke={PREVIEW_COLOR} dash={[6, 4]} strokeWidth={1.5} strokeScaleEnabled={false} />
        {p1 && <Label value={make(vertex as Vec, p1, drawing.current)} color={PREVIEW_COLOR} scale={scale} />}
      </Group>
    );
  },
};

export default angle;
