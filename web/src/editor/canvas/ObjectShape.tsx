import type Konva from 'konva';
import type { KonvaEventObject } from 'konva/lib/Node';
import { memo, useState } from 'react';
import { Circle, Group, Line, Rect } from 'react-konva';
import { moveVertex, round, translate } from '../model/geometry';
import type { EditorObject, Geometry, Vec } from '../model/types';

export interface ObjectShapeProps {
  object: EditorObject;
  color: string;
  scale: number;
  selected: boolean;
  editable: boolean;
  onSelect(objectId: string): void;
  onChange(objectId: string, geometry: Geometry): void;
  /** Box nodes register themselves so the transformer can hold the selected one. */
  registerNode?(objectId: string, node: Konva.Node | null): void;
}

/** Screen-constant sizes: geometry lives in image pixels inside a scaled group. */
const px = (n: number, scale: number) => n / scale;

function flat(points: Vec[]): number[] {
  return points.flatMap(([x, y]) => [x, y]);
}

/**
 * One object of the answer drawn in image pixels, with vertex handles when selected. Memoised:
 * panning re-renders the canvas, not its 500 objects.
 */
export const ObjectShape = memo(function ObjectShape({
  object,
  color,
  scale,
  selected,
  editable,
  onSelect,
  onChange,
  registerNode,
}: ObjectShapeProps) {
  // A vertex being dragged: the outline follows it; the answer changes once, on release.
  const [live, setLive] = useState<Vec[] | null>(null);
  const g = object.geometry;
  const id = object.objectId;
  const common = {
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
  const dragEnd = (e: KonvaEventObject<DragEvent>) => {
    const node = e.target;
    const dx = node.x();
    const dy = node.y();
    node.position({ x: 0, y: 0 });
    onChange(id, translate(g, dx, dy));
  };

  switch (g.kind) {
    case 'bounding-box':
    case 'rotated-bounding-box': {
      const v = g.value;
      const rotation = g.kind === 'rotated-bounding-box' ? g.value.rotation : 0;
      return (
        <Rect
          {...common}
          ref={(node) => registerNode?.(id, node)}
          x={v.x}
          y={v.y}
          width={v.width}
          height={v.height}
          rotation={rotation}
          fill={`${color}22`}
          draggable={editable && selected}
          onDragEnd={(e) => {
            const node = e.target;
            onChange(id, { ...g, value: { ...v, x: round(node.x()), y: round(node.y()) } } as Geometry);
          }}
          onTransformEnd={(e) => {
            const node = e.target;
            const width = round(Math.max(1, node.width() * node.scaleX()));
            const height = round(Math.max(1, node.height() * node.scaleY()));
            node.scale({ x: 1, y: 1 });
            const base = { x: round(node.x()), y: round(node.y()), width, height };
            onChange(
              id,
              g.kind === 'rotated-bounding-box'
                ? { kind: g.kind, value: { ...base, rotation: round(node.rotation()) } }
                : { kind: g.kind, value: base },
            );
          }}
        />
      );
    }
    case 'polygon':
    case 'polyline':
      return (
        <Group>
          <Line
            {...common}
            points={flat(live ?? g.value)}
            closed={g.kind === 'polygon'}
            fill={g.kind === 'polygon' ? `${color}22` : undefined}
            hitStrokeWidth={px(10, scale)}
            draggable={editable && selected}
            onDragEnd={dragEnd}
          />
          {selected &&
            editable &&
            g.value.map(([x, y], i) => (
              <Circle
                key={i}
                name={`vertex vertex-${id}-${i}`}
                x={x}
                y={y}
                radius={px(5, scale)}
                fill="#fff"
                stroke={color}
                strokeWidth={2}
                strokeScaleEnabled={false}
                draggable
                onMouseDown={(e) => (e.cancelBubble = true)}
                onDragMove={(e) => {
                  const moved = moveVertex(g, i, [e.target.x(), e.target.y()]);
                  if (moved.kind === 'polygon' || moved.kind === 'polyline') setLive(moved.value);
                }}
                onDragEnd={(e) => {
                  setLive(null);
                  onChange(id, moveVertex(g, i, [e.target.x(), e.target.y()]));
                }}
              />
            ))}
        </Group>
      );
    case 'point':
      return (
        <Circle
          {...common}
          x={g.value[0]}
          y={g.value[1]}
          radius={px(selected ? 7 : 5, scale)}
          fill={color}
          stroke="#fff"
          draggable={editable && selected}
          onDragEnd={(e) => {
            const node = e.target;
            onChange(id, { kind: 'point', value: [round(node.x()), round(node.y())] });
          }}
        />
      );
    case 'ner':
      return null;
  }
});
