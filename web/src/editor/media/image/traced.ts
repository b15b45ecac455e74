import type { EditorObject } from '../../core/answer';
import type { TracePaths } from '../../core/tool';
import { planeTool } from '../../core/tools';

/** Paths of one colour, with the colour: what `paintTraced` draws. */
export type TracedBatch = [color: string, paths: TracePaths];

/**
 * Objects of plane tools traced by their tools into one set of paths per colour, in medium
 * units; `radius` is a point's dot, in medium units too. Objects of other tools are left out.
 */
export function traceByColor(
  objects: readonly EditorObject[],
  colorOf: (schemaId: string) => string,
  radius: number,
): TracedBatch[] {
  const byColor = new Map<string, TracePaths>();
  for (const o of objects) {
    const tool = planeTool(o.geometry.kind);
    if (!tool) continue;
    const color = colorOf(o.schemaId);
    let batch = byColor.get(color);
    if (!batch) {
      batch = { fill: new Path2D(), stroke: new Path2D(), dots: new Path2D() };
      byColor.set(color, batch);
    }
    // Each tool traces its own outline into its colour's paths.
    tool.trace(batch, o.geometry.value, radius);
  }
  return [...byColor];
}

/** Draws traced paths: a light fill, the outline `lineWidth` wide (in the context's units), dots ringed in white. */
export function paintTraced(ctx: CanvasRenderingContext2D, batches: readonly TracedBatch[], lineWidth: number): void {
  ctx.lineWidth = lineWidth;
  ctx.lineJoin = 'round';
  for (const [color, { fill, stroke, dots }] of batches) {
    ctx.fillStyle = `${color}22`;
    ctx.fill(fill);
    ctx.strokeStyle = color;
    ctx.stroke(stroke);
    ctx.fillStyle = color;
    ctx.fill(dots);
    ctx.strokeStyle = '#fff';
    ctx.stroke(dots);
  }
}
