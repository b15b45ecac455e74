import { Rect } from 'react-konva';
import type { BoxGeometry, Geometry, Vec } from '../../core/answer';
import { boxFromCorners, outlineHit, pathThrough, round } from '../../core/plane';
import type { PlaneTool, ShapeProps } from '../../core/tool';
import { outlineProps, PREVIEW_COLOR } from './shape-props';

/** Smallest box kept, in screen pixels (a click is not a box). */
export const MIN_BOX_SCREEN_PX = 4;

/** A box being dragged from one corner to the other. */
export interface BoxDrag {
  start: Vec;
  current: Vec;
}

/** A box value: an axis-aligned box, or one turned by `rotation` degrees about (x, y). */
type AnyBox = BoxGeometry & { rotation?: number };

/** Corners of a box (rotation in degrees, clockwise, about (x, y)), clockwise from (x, y). */
export function boxCorners(b: AnyBox): Vec[] {
  const r = ((b.rotation ?? 0) * Math.PI) / 180;
  const cos = Math.cos(r);
  const sin = Math.sin(r);
  const at = (dx: number, dy: number): Vec => [b.x + dx * cos - dy * sin, b.y + dx * sin + dy * cos];
  return [at(0, 0), at(b.width, 0), at(b.width, b.height), at(0, b.height)];
}

const isRec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The two box tools (axis-aligned and rotated): dragged corner to corner, resized (and turned)
 * by the surface's transformer, moved by a drag.
 */
export function boxTool<K extends 'bounding-box' | 'rotated-bounding-box'>(
  kind: K,
  name: string,
  rotated: boolean,
): PlaneTool<K, BoxDrag> {
  const made = (box: BoxGeometry): AnyBox => (rotated ? { ...box, rotation: 0 } : box);
  const Shape = (props: ShapeProps) => {
    const g = props.object.geometry as { kind: K; value: AnyBox };
    const v = g.value;
    const id = props.object.objectId;
    return (
      <Rect
        {...outlineProps(props)}
        ref={(node) => props.registerNode?.(id, node)}
        x={v.x}
        y={v.y}
        width={v.width}
        height={v.height}
        rotation={v.rotation ?? 0}
        fill={`${props.color}22`}
        draggable={props.editable && props.selected}
        onDragEnd={(e) => {
          const node = e.target;
          props.onChange(id, { kind, value: { ...v, x: round(node.x()), y: round(node.y()) } } as Geometry);
        }}
        onTransformEnd={(e) => {
          const node = e.target;
          const width = round(Math.max(1, node.width() * node.scaleX()));
          const height = round(Math.max(1, node.height() * node.scaleY()));
          node.scale({ x: 1, y: 1 });
          const base = { x: round(node.x()), y: round(node.y()), width, height };
          const value = rotated ? { ...base, rotation: round(node.rotation()) } : base;
          props.onChange(id, { kind, value } as Geometry);
        }}
      />
    );
  };
  const tool: PlaneTool<'bounding-box' | 'rotated-bounding-box', BoxDrag> = {
    kind,
    name,
    space: 'plane',
    transform: { rotate: rotated },
    read(raw) {
      if (!isRec(raw)) return null;
      const box = { x: +raw.x!, y: +raw.y!, width: +raw.width!, height: +raw.height! };
      return rotated ? { ...box, rotation: +raw.rotation! || 0 } : box;
    },
    write: (value) => value,
    outline: (value) => boxCorners(value),
    hit: (value, at, tolerance) => outlineHit(boxCorners(value), true, at, tolerance),
    move: (value, [dx, dy]) => ({ ...value, x: round(value.x + dx), y: round(value.y + dy) }),
    degenerate: (value, minSize) => value.width < minSize || value.height < minSize,
    press: (_drawing, at) => ({ drawing: { start: at, current: at } }),
    drag: (drawing, at) => ({ ...drawing, current: at }),
    release(drawing, at, view) {
      const value = made(boxFromCorners(drawing.start, at));
      const small = value.width < MIN_BOX_SCREEN_PX / view.scale || value.height < MIN_BOX_SCREEN_PX / view.scale;
      return small ? { drawing: null } : { drawing: null, done: value };
    },
    trace(paths, value) {
      const path = pathThrough(boxCorners(value), true);
      paths.fill.addPath(path);
      paths.stroke.addPath(path);
    },
    Shape,
    Preview: ({ drawing }) => (
      <Rect
        x={Math.min(drawing.start[0], drawing.current[0])}
        y={Math.min(drawing.start[1], drawing.current[1])}
        width={Math.abs(drawing.current[0] - drawing.start[0])}
        height={Math.abs(drawing.current[1] - drawing.start[1])}
        stroke={PREVIEW_COLOR}
        dash={[6, 4]}
        strokeWidth={1.5}
        strokeScaleEnabled={false}
        listening={false}
      />
    ),
  };
  return tool as PlaneTool<K, BoxDrag>;
}
