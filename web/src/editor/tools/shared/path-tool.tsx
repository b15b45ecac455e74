import { useState } from 'react';
import { Circle, Group, Line } from 'react-konva';
import type { Geometry, Vec } from '../../core/answer';
import { outlineHit, pathThrough, roundVec } from '../../core/plane';
import type { PlaneTool, ShapeProps, Step } from '../../core/tool';
import { outlineProps, PREVIEW_COLOR, px } from './shape-props';
import { VertexHandle } from './VertexHandle';

/** How near (screen pixels) a click must be to the first vertex to close a polygon. */
export const CLOSE_DISTANCE_SCREEN_PX = 8;

/** A path being clicked vertex by vertex; `current` follows the pointer. */
export interface PathClicks {
  points: Vec[];
  current: Vec;
}

const isVec = (v: unknown): v is Vec =>
  Array.isArray(v) && v.length >= 2 && typeof v[0] === 'number' && typeof v[1] === 'number';
const flat = (points: Vec[]) => points.flatMap(([x, y]) => [x, y]);

/**
 * Polygons and polylines: clicked vertex by vertex, finished by clicking the first vertex
 * (polygon), a double click or Enter; Backspace drops the last vertex. Selected, each vertex has
 * a handle; the answer changes once, when a handle is let go.
 */
export function pathTool<K extends 'polygon' | 'polyline'>(
  kind: K,
  name: string,
  closed: boolean,
): PlaneTool<K, PathClicks> {
  const minPoints = closed ? 3 : 2;
  const finish = (d: PathClicks): Step<Vec[], PathClicks> =>
    d.points.length < minPoints ? { drawing: d } : { drawing: null, done: d.points };
  const moveVertex = (value: Vec[], index: number, to: Vec) => value.map((p, i) => (i === index ? roundVec(to) : p));

  function Shape(props: ShapeProps) {
    // A vertex being dragged: the outline follows it; the answer changes once, on release.
    const [live, setLive] = useState<Vec[] | null>(null);
    const { object, color, scale, selected, editable, onChange } = props;
    const value = (object.geometry as { value: Vec[] }).value;
    const id = object.objectId;
    const change = (next: Vec[]) => onChange(id, { kind, value: next } as Geometry);
    return (
      <Group>
        <Line
          {...outlineProps(props)}
          points={flat(live ?? value)}
          closed={closed}
          fill={closed ? `${color}22` : undefined}
          hitStrokeWidth={px(10, scale)}
          draggable={editable && selected}
          onDragEnd={(e) => {
            const node = e.target;
            const by: Vec = [node.x(), node.y()];
            node.position({ x: 0, y: 0 });
            change(value.map(([x, y]) => roundVec([x + by[0], y + by[1]])));
          }}
        />
        {selected &&
          editable &&
          value.map((at, i) => (
            <VertexHandle
              key={i}
              objectId={id}
              index={i}
              at={at}
              color={color}
              scale={scale}
              onMove={(to) => setLive(moveVertex(value, i, to))}
              onDrop={(to) => {
                setLive(null);
                change(moveVertex(value, i, to));
              }}
            />
          ))}
      </Group>
    );
  }

  const tool: PlaneTool<'polygon' | 'polyline', PathClicks> = {
    kind,
    name,
    space: 'plane',
    read: (raw) => (Array.isArray(raw) && raw.every(isVec) ? raw.map(([x, y]) => [x, y] as Vec) : null),
    write: (value) => value,
    outline: (value) => value,
    hit: (value, at, tolerance) => outlineHit(value, closed, at, tolerance),
    move: (value, [dx, dy]) => value.map(([x, y]) => roundVec([x + dx, y + dy])),
    degenerate: (value) => value.length < minPoints,
    moveVertex,
    press(drawing, at, view) {
      if (!drawing) return { drawing: { points: [at], current: at } };
      const first = drawing.points[0];
      const nearFirst =
        first && Math.hypot(at[0] - first[0], at[1] - first[1]) * view.scale <= CLOSE_DISTANCE_SCREEN_PX;
      if (closed && drawing.points.length >= 3 && nearFirst) return finish(drawing);
      return { drawing: { points: [...drawing.points, at], current: at } };
    },
    drag: (drawing, at) => ({ ...drawing, current: at }),
    release: (drawing) => ({ drawing }),
    finish,
    dropLast: (drawing) => (drawing.points.length <= 1 ? null : { ...drawing, points: drawing.points.slice(0, -1) }),
    trace(paths, value) {
      const path = pathThrough(value, closed);
      if (closed) paths.fill.addPath(path);
      paths.stroke.addPath(path);
    },
    Shape,
    Preview: ({ drawing, scale }) => (
      <Group listening={false}>
        <Line
          points={flat([...drawing.points, drawing.current])}
          stroke={PREVIEW_COLOR}
          dash={[6, 4]}
          strokeWidth={1.5}
          strokeScaleEnabled={false}
        />
        {drawing.points.map(([x, y], i) => (
          <Circle
            key={i}
            x={x}
            y={y}
            radius={4 / scale}
            fill="#fff"
            stroke={PREVIEW_COLOR}
            strokeWidth={1.5}
            strokeScaleEnabled={false}
          />
        ))}
      </Group>
    ),
  };
  return tool as PlaneTool<K, PathClicks>;
}
