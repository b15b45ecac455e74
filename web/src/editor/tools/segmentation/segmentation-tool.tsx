import type Konva from 'konva';
import { useState } from 'react';
import { Group, Shape } from 'react-konva';
import type { Geometry, Vec } from '../../core/answer';
import { pathThrough, roundVec } from '../../core/plane';
import type { PlaneTool, ShapeProps } from '../../core/tool';
import { pathTool, type PathClicks } from '../shared/path-tool';
import { outlineProps, px } from '../shared/shape-props';
import { VertexHandle } from '../shared/VertexHandle';
import { hitZones, normalize, ringsOf, type Segmentation, type Zone } from './zones';

const isVec = (v: unknown): v is Vec =>
  Array.isArray(v) && v.length >= 2 && typeof v[0] === 'number' && typeof v[1] === 'number';
const isRing = (v: unknown): v is Vec[] => Array.isArray(v) && v.every(isVec);

function readZone(raw: unknown): Zone | null {
  if (!raw || typeof raw !== 'object') return null;
  const { region, holes } = raw as { region?: unknown; holes?: unknown };
  if (!isRing(region)) return null;
  const hs = holes === undefined ? [] : holes;
  if (!Array.isArray(hs) || !hs.every(isRing)) return null;
  return { region: region.map(([x, y]) => [x, y]), holes: hs.map((h) => h.map(([x, y]) => [x, y] as Vec)) };
}

/** Vertex `index` counted over the rings in order (each zone's region, then its holes). */
function moveVertex(value: Segmentation, index: number, to: Vec): Segmentation {
  let n = index;
  const moveIn = (ring: Vec[]) => {
    if (n >= 0 && n < ring.length) {
      const i = n;
      n = -1;
      return ring.map((p, j) => (j === i ? roundVec(to) : p));
    }
    if (n >= 0) n -= ring.length;
    return ring;
  };
  return { zones: value.zones.map((z) => ({ region: moveIn(z.region), holes: z.holes.map(moveIn) })) };
}

/** Vertex `index` removed, when its ring keeps three. */
export function removeVertex(value: Segmentation, index: number): Segmentation {
  let n = index;
  const dropIn = (ring: Vec[]) => {
    if (n >= 0 && n < ring.length) {
      const i = n;
      n = -1;
      return ring.length > 3 ? ring.filter((_, j) => j !== i) : ring;
    }
    if (n >= 0) n -= ring.length;
    return ring;
  };
  return { zones: value.zones.map((z) => ({ region: dropIn(z.region), holes: z.holes.map(dropIn) })) };
}

/** A vertex added on the edge of a ring nearest to `at` (after that edge's first vertex). */
export function addVertex(value: Segmentation, at: Vec): Segmentation {
  let best = { ring: -1, after: -1, distance: Infinity };
  ringsOf(value).forEach((ring, r) =>
    ring.forEach((a, i) => {
      const b = ring[(i + 1) % ring.length]!;
      const dx = b[0] - a[0];
      const dy = b[1] - a[1];
      const len = dx * dx + dy * dy;
      const t = len ? Math.max(0, Math.min(1, ((at[0] - a[0]) * dx + (at[1] - a[1]) * dy) / len)) : 0;
      const d = Math.hypot(at[0] - a[0] - t * dx, at[1] - a[1] - t * dy);
      if (d < best.distance) best = { ring: r, after: i, distance: d };
    }),
  );
  let r = 0;
  const addIn = (ring: Vec[]) => {
    const here = r++ === best.ring;
    return here ? [...ring.slice(0, best.after + 1), roundVec(at), ...ring.slice(best.after + 1)] : ring;
  };
  return { zones: value.zones.map((z) => ({ region: addIn(z.region), holes: z.holes.map(addIn) })) };
}

const polygon = pathTool('polygon', 'Polygon', true);
const asZones = (points: Vec[]): Segmentation => normalize({ zones: [{ region: points, holes: [] }] });

/** Twice the signed area: its sign is the ring's winding. */
const winding = (ring: Vec[]) =>
  ring.reduce((s, [x, y], i) => s + x * ring[(i + 1) % ring.length]![1] - ring[(i + 1) % ring.length]![0] * y, 0);

/**
 * The zones as one path: each hole is wound against its region (turned round when it was sent
 * the same way, as the API allows), so a nonzero fill (every object of a colour drawn at once)
 * leaves holes empty.
 */
function zonesPath(value: Segmentation): Path2D {
  const path = new Path2D();
  for (const z of value.zones) {
    path.addPath(pathThrough(z.region, true));
    const outward = Math.sign(winding(z.region));
    for (const h of z.holes) path.addPath(pathThrough(Math.sign(winding(h)) === outward ? [...h].reverse() : h, true));
  }
  return path;
}

/**
 * The selected segmentation: its zones filled (holes left empty), a handle on every vertex. Drag a
 * handle to move it, Alt+click a handle to remove it, double-click an outline to add one there.
 */
function SegmentationShape(props: ShapeProps) {
  const [live, setLive] = useState<Segmentation | null>(null);
  const { object, color, scale, selected, editable, onChange } = props;
  const value = (object.geometry as { value: Segmentation }).value;
  const shown = live ?? value;
  const id = object.objectId;
  const change = (next: Segmentation) => onChange(id, { kind: 'segmentation', value: next } as Geometry);
  const sceneFunc = (context: Konva.Context, shape: Konva.Shape) => {
    const ctx = context._context;
    const path = zonesPath(shown);
    ctx.fillStyle = `${color}33`;
    ctx.fill(path, 'evenodd');
    ctx.lineWidth = shape.strokeWidth() / scale;
    ctx.strokeStyle = color;
    ctx.stroke(path);
  };
  const hitFunc = (context: Konva.Context, shape: Konva.Shape) => {
    context.beginPath();
    for (const ring of ringsOf(shown)) ring.forEach(([x, y], i) => (i ? context.lineTo(x, y) : context.moveTo(x, y)));
    context.closePath();
    context.fillStrokeShape(shape);
  };
  let index = 0;
  return (
    <Group>
      <Shape
        {...outlineProps(props)}
        sceneFunc={sceneFunc}
        hitFunc={hitFunc}
        fill={color}
        hitStrokeWidth={px(10, scale)}
        draggable={editable && selected}
        onDblClick={(e) => {
          if (!editable) return;
          const p = e.target.getRelativePointerPosition();
          if (p) change(addVertex(value, [p.x, p.y]));
        }}
        onDragEnd={(e) => {
          const node = e.target;
          const by: Vec = [node.x(), node.y()];
          node.position({ x: 0, y: 0 });
          change(segmentationTool.move(value, by));
        }}
      />
      {selected &&
        editable &&
        ringsOf(value).flatMap((ring) =>
          ring.map((at) => {
            const i = index++;
            return (
              <VertexHandle
                key={i}
                objectId={id}
                index={i}
                at={at}
                color={color}
                scale={scale}
                onPress={(e) => {
                  if (e.evt.altKey) change(removeVertex(value, i));
                }}
                onMove={(to) => setLive(moveVertex(value, i, to))}
                onDrop={(to) => {
                  setLive(null);
                  change(normalize(moveVertex(value, i, to)));
                }}
              />
            );
          }),
        )}
    </Group>
  );
}

/**
 * Segmentation: objects made of zones with holes. Drawn as a polygon is (click the vertices, close
 * on the first one, double-click or Enter); the outline is repaired into zones that do not cross
 * themselves. The image editor cuts a hole (or takes a part away) when the closing press holds Alt,
 * and adds a zone to the selected object when it holds Shift.
 */
export const segmentationTool: PlaneTool<'segmentation', PathClicks> = {
  kind: 'segmentation',
  name: 'Segmentation',
  space: 'plane',
  read(raw) {
    const zones = (raw as { zones?: unknown } | null)?.zones;
    if (!Array.isArray(zones)) return null;
    const read = zones.map(readZone);
    return read.every((z): z is Zone => z !== null) ? { zones: read } : null;
  },
  write: (value) => ({ zones: value.zones.map((z) => ({ region: z.region, holes: z.holes })) }),
  outline: (value) => value.zones.flatMap((z) => z.region),
  hit: hitZones,
  move: (value, [dx, dy]) => ({
    zones: value.zones.map((z) => ({
      region: z.region.map(([x, y]) => roundVec([x + dx, y + dy])),
      holes: z.holes.map((h) => h.map(([x, y]) => roundVec([x + dx, y + dy]))),
    })),
  }),
  degenerate: (value) => !value.zones.some((z) => z.region.length >= 3),
  moveVertex,
  press(drawing, at, view) {
    const step = polygon.press(drawing, at, view);
    return { drawing: step.drawing, done: step.done && asZones(step.done) };
  },
  drag: (drawing, at) => polygon.drag(drawing, at),
  release: (drawing) => ({ drawing }),
  finish(drawing) {
    const step = polygon.finish!(drawing);
    return { drawing: step.drawing, done: step.done && asZones(step.done) };
  },
  dropLast: (drawing) => polygon.dropLast!(drawing),
  trace(paths, value) {
    const path = zonesPath(value);
    paths.fill.addPath(path);
    paths.stroke.addPath(path);
  },
  Shape: SegmentationShape,
  Preview: polygon.Preview,
};
