import type { BrushLayer } from '../../files/layers/brush-layers.js';
import type { DatasetObject } from './dataset-task.js';
import { paintObject } from './object-shapes.js';
import type { DatasetClass } from '../../files/layers/ontology-classes.js';
import { emptyRaster, type Raster } from '../../files/layers/raster.js';

/*
 * The class map and the instance map of one image, shared by the `masks` and `voc` formats.
 * Brush layers are painted first, then objects in answer order (a later object covers an
 * earlier one, as in the editor). Class value = the class's number in `classes` + 1 (0 is
 * background); instance value = the instance's number from 1.
 */

export interface Instance {
  id: number;
  objectId: string | null;
  cls: DatasetClass;
}

export interface MaskMaps {
  classMap: Raster;
  instanceMap: Uint16Array;
  instances: Instance[];
}

export function maskMaps(
  width: number,
  height: number,
  objects: readonly DatasetObject[],
  layer: BrushLayer | undefined,
  classNumber: Map<string, number>,
): MaskMaps {
  const classMap = emptyRaster(width, height);
  const instanceMap = new Uint16Array(width * height);
  const instances: Instance[] = [];
  if (layer && layer.raster.width === width && layer.raster.height === height) {
    layer.classes.forEach((cls, k) => {
      const value = classNumber.get(cls.schemaId);
      if (value === undefined) return;
      const id = instances.length + 1;
      let any = false;
      for (let p = 0; p < layer.raster.data.length; p++) {
        if (layer.raster.data[p] !== k + 1) continue;
        classMap.data[p] = value;
        instanceMap[p] = id;
        any = true;
      }
      if (any) instances.push({ id, objectId: null, cls });
    });
  }
  const scratch = emptyRaster(width, height);
  for (const o of objects) {
    const value = classNumber.get(o.cls.schemaId);
    if (value === undefined || instances.length >= 65_535) continue;
    scratch.data.fill(0);
    if (!paintObject(scratch, o, 1)) continue;
    const id = instances.length + 1;
    for (let p = 0; p < scratch.data.length; p++) {
      if (scratch.data[p] !== 1) continue;
      classMap.data[p] = value;
      instanceMap[p] = id;
    }
    instances.push({ id, objectId: o.objectId, cls: o.cls });
  }
  return { classMap, instanceMap, instances };
}

/** Pascal VOC's colour map: index i's colour from its bits, 0 black. */
export function vocColour(i: number): [number, number, number] {
  let r = 0;
  let g = 0;
  let b = 0;
  let c = i;
  for (let j = 0; j < 8; j++) {
    r |= ((c >> 0) & 1) << (7 - j);
    g |= ((c >> 1) & 1) << (7 - j);
    b |= ((c >> 2) & 1) << (7 - j);
    c >>= 3;
  }
  return [r, g, b];
}
