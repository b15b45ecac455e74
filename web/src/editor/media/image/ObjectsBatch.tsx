import type Konva from 'konva';
import { memo, useMemo } from 'react';
import { Shape } from 'react-konva';
import type { EditorObject } from '../../core/answer';
import { paintTraced, traceByColor } from './traced';

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
  const batches = useMemo(() => traceByColor(objects, colorOf, 5 / scale), [objects, colorOf, scale]);
  const sceneFunc = (context: Konva.Context) => paintTraced(context._context, batches, 2 / scale);
  return <Shape sceneFunc={sceneFunc} listening={false} perfectDrawEnabled={false} />;
});
