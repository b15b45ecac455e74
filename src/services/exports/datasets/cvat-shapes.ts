import type { DatasetObject } from './dataset-task.js';
import {
  type Box,
  type Pt,
  r2,
  type RotatedBox,
  readBox,
  readPoint,
  readPoints,
  readRotatedBox,
  readZones,
} from './geometry.js';
import { answerText } from '../../files/layers/ontology-classes.js';
import { paintObject } from './object-shapes.js';
import { emptyRaster, pixelBox, type Raster, runLengths } from '../../files/layers/raster.js';
import { xml } from './xml-text.js';

/*
 * One object as CVAT 1.1 XML elements: `box` (with `rotation` for rotated boxes), `polygon`,
 * `polyline`, `points`, and `mask` (CVAT's row-major RLE inside the mask's box) for
 * segmentation zones with holes and brush classes. `extra` carries a track element's
 * attributes (`frame`, `outside`, `keyframe`).
 */

const withoutRotation = (b: Box | undefined): RotatedBox | undefined => (b ? { ...b, rotation: 0 } : undefined);
const pts = (points: readonly Pt[]) => points.map(([x, y]) => `${r2(x)},${r2(y)}`).join(';');

function attributeXml(attrs: Record<string, unknown>): string {
  return Object.entries(attrs)
    .map(([k, v]) => `<attribute name="${xml(k)}">${xml(answerText(v))}</attribute>`)
    .join('');
}

/** CVAT's mask RLE: row-major runs inside the box, starting with an unset run. */
export function cvatMask(raster: Raster, value: number, label: string, extra: string): string | undefined {
  const box = pixelBox(raster, value);
  if (!box) return undefined;
  const [left, top, width, height] = box;
  const hit = (x: number, y: number) => raster.data[(top + y) * raster.width + left + x] === value;
  const counts = runLengths(width, height, hit, false);
  return (
    `<mask label="${xml(label)}" source="manual" occluded="0"${extra} rle="${counts.join(', ')}" ` +
    `left="${left}" top="${top}" width="${width}" height="${height}" z_order="0"></mask>`
  );
}

/** The element(s) of one object, or undefined when CVAT cannot hold it or its geometry is wrong. */
export function cvatElements(o: DatasetObject, size: { w?: number; h?: number }, extra = ''): string[] | undefined {
  const head = `label="${xml(o.cls.name)}" source="manual" occluded="0"${extra}`;
  const attrs = attributeXml(o.attributes);
  const tail = (tag: string) => `>${attrs}</${tag}>`;
  switch (o.cls.tool) {
    case 'bounding-box':
    case 'rotated-bounding-box': {
      const b: RotatedBox | undefined =
        o.cls.tool === 'bounding-box' ? withoutRotation(readBox(o.geometry)) : readRotatedBox(o.geometry);
      if (!b) return undefined;
      const rotation = b.rotation ? ` rotation="${r2(b.rotation)}"` : '';
      return [
        `<box ${head} xtl="${r2(b.x)}" ytl="${r2(b.y)}" xbr="${r2(b.x + b.width)}" ybr="${r2(b.y + b.height)}"${rotation} z_order="0"${tail('box')}`,
      ];
    }
    case 'polygon':
    case 'polyline': {
      const p = readPoints(o.geometry, o.cls.tool === 'polygon' ? 3 : 2);
      return p ? [`<${o.cls.tool} ${head} points="${pts(p)}" z_order="0"${tail(o.cls.tool)}`] : undefined;
    }
    case 'point': {
      const p = readPoint(o.geometry);
      return p ? [`<points ${head} points="${pts([p])}" z_order="0"${tail('points')}`] : undefined;
    }
    case 'segmentation': {
      const zones = readZones(o.geometry);
      if (!zones) return undefined;
      if (zones.every((z) => !z.holes.length)) {
        return zones.map((z) => `<polygon ${head} points="${pts(z.region)}" z_order="0"${tail('polygon')}`);
      }
      if (!size.w || !size.h) return undefined;
      const raster = emptyRaster(size.w, size.h);
      paintObject(raster, o, 1);
      const mask = cvatMask(raster, 1, o.cls.name, extra);
      return mask ? [mask.replace('></mask>', `>${attrs}</mask>`)] : undefined;
    }
    default:
      return undefined;
  }
}
