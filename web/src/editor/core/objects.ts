import type { BoxGeometry, Geometry, Vec } from './answer';
import { boundsOf } from './plane';
import { planeTool, toolOf } from './tools';

/** The vertices a plane geometry is drawn through, in medium coordinates (none for a text span). */
export function outline(g: Geometry): Vec[] {
  return planeTool(g.kind)?.outline(g.value) ?? [];
}

/** The axis-aligned bounds of a plane geometry, for hit tests and "zoom to object". */
export function bounds(g: Geometry): BoxGeometry | null {
  return boundsOf(outline(g));
}

/** The geometry moved by a vector of its space. */
export function translate(g: Geometry, dx: number, dy: number): Geometry {
  const tool = toolOf(g);
  const value =
    tool.space === 'plane'
      ? tool.move(g.value, [dx, dy])
      : tool.space === 'document'
        ? tool.move(g.value, [0, dx, dy])
        : tool.space === 'lidar'
          ? tool.move(g.value, [dx, dy, 0])
          : tool.move(g.value, dx);
  return { kind: g.kind, value } as Geometry;
}

/** The geometry with vertex `index` moved to `to` (polygons, polylines, points). */
export function moveVertex(g: Geometry, index: number, to: Vec): Geometry {
  const tool = planeTool(g.kind);
  if (tool?.moveVertex) return { kind: g.kind, value: tool.moveVertex(g.value, index, to) } as Geometry;
  return g;
}

/** Is a drawn shape big enough to keep (a click is not a box)? Sizes in medium units. */
export function isDegenerate(g: Geometry, minSize: number): boolean {
  return toolOf(g).degenerate(g.value, minSize);
}

/**
 * The object a click at `p` picks among plane objects. Fills are translucent, so every outline
 * under the pointer is visible and "the one on top" means little to the person clicking;
 * instead, as in CVAT, the most precise hit wins: a point, vertex or outline within `tolerance`
 * (the nearest) before any interior, and among interiors the smallest area, so an object drawn
 * inside a bigger one can always be picked and the bigger one is picked anywhere else. Ties go
 * to the last drawn.
 */
export function hitObject<T extends { geometry: Geometry }>(
  objects: readonly T[],
  p: Vec,
  tolerance: number,
): T | undefined {
  let best: { object: T; edge: boolean; measure: number } | undefined;
  for (const object of objects) {
    const hit = planeTool(object.geometry.kind)?.hit(object.geometry.value, p, tolerance);
    if (!hit) continue;
    const better = !best || (hit.edge && !best.edge) || (hit.edge === best.edge && hit.measure <= best.measure);
    if (better) best = { object, ...hit };
  }
  return best?.object;
}
