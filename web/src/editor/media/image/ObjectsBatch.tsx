import type Konva from 'konva';
import { memo, useMemo } from 'react';
import { Shape } from 'react-konva';
import type { EditorObject } from '../../core/answer';
import type { TracePaths } from '../../core/tool';
import { planeTool } from '../../core/tools';

export interface ObjectsBatchProps {
  /** The objects to draw: every object but the selected one. */
  objects: EditorObject[];
  colorOf(schemaId: string): string;
  /** The view's zoom: outlines and points keep a constant size on the screen. */
  scale: number;
}

/**
 * The objects nobody is touching, drawn as one konva shape in image pixels (each traced by its tool): one path per colour
 * for the fills and one for the outlines, the points as dots. It takes no events and has no hit
 * canvas (`listening={false}`); a click finds its object in the model (`hitObject`), and the
 * selected object is drawn by `ObjectShape` with its handles. With 500 konva nodes, one per object,
 * the open spent its main thread building, measuring and drawing nodes (and drawing a hit canvas
 * of them), and each zoom re-rendered 500 components; now a zoom re-renders this one.
 */
export const ObjectsBatch = memo(function ObjectsBatch({ objects, colorOf, scale }: ObjectsBatchProps) {
  // Built once per change of the objects or the zoom, not on each frame of a pan.
  const batches = useMemo(() => {
    const byColor = new Map<string, TracePaths>();
    const radius = 5 / scale;
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
  }, [objects, colorOf, scale]);

  const sceneFunc = (context: Konva.Context) => {
    const ctx = context._context;
    ctx.lineWidth = 2 / scale;
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
  };
  return <Shape sceneFunc={sceneFunc} listening={false} perfectDrawEnabled={false} />;
});
