import type { DatasetObject } from './dataset-task.js';
import {
  boxCorners,
  enclosing,
  type Pt,
  readBox,
  readPoints,
  readRotatedBox,
  readZones,
  rotatedCorners,
  type Box,
  readPoint,
} from './geometry.js';
import { fillRings, type Raster } from '../../files/layers/raster.js';

/*
 * Each object's geometry in the forms the formats share: the areas it covers (for masks and RLE),
 * its enclosing box, its outline points. Undefined where the object's kind has no such form or
 * its stored geometry has the wrong shape.
 */

/** The fills of an object: each a list of rings filled together by even-odd (outer ring + holes). */
export function areaFills(o: DatasetObject): Pt[][][] | undefined {
  switch (o.cls.tool) {
    case 'bounding-box': {
      const b = readBox(o.geometry);
      return b ? [[boxCorners(b)]] : undefined;
    }
    case 'rotated-bounding-box': {
      const b = readRotatedBox(o.geometry);
      return b ? [[rotatedCorners(b)]] : undefined;
    }
    case 'polygon': {
      const p = readPoints(o.geometry, 3);
      return p ? [[p]] : undefined;
    }
    case 'segmentation': {
      const zones = readZones(o.geometry);
      return zones?.map((z) => [z.region, ...z.holes]);
    }
    default:
      return undefined;
  }
}

/** The outline points an object is drawn through (corners, vertices, the point). */
export function outline(o: DatasetObject): Pt[] | undefined {
  if (o.cls.tool === 'polyline') return readPoints(o.geometry, 2);
  if (o.cls.tool === 'point') {
    const p = readPoint(o.geometry);
    return p ? [p] : undefined;
  }
  return areaFills(o)?.flatMap((fill) => fill[0] ?? []);
}

/** The object's enclosing axis-aligned box. */
export function boundingBox(o: DatasetObject): Box | undefined {
  const pts = outline(o);
  return pts?.length ? enclosing(pts) : undefined;
}

/** Paints an object's area into a raster with `value`. Answers whether it had an area. */
export function paintObject(raster: Raster, o: DatasetObject, value: number): boolean {
  const fills = areaFills(o);
  if (!fills) return false;
  for (const rings of fills) fillRings(raster, rings, value);
  return true;
}

/** Holes anywhere in a segmentation object (COCO polygons cannot hold them). */
export function hasHoles(o: DatasetObject): boolean {
  return o.cls.tool === 'segmentation' && (readZones(o.geometry) ?? []).some((z) => z.holes.length > 0);
}
