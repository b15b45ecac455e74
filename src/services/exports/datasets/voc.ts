import type { DatasetSource } from './dataset-source.js';
import { type DatasetObject, type DatasetTask, framesOf } from './dataset-task.js';
import type { ZipEntry } from './dataset-zip.js';
import { r2, readRotatedBox } from './geometry.js';
import { maskMaps, vocColour } from './mask-maps.js';
import { boundingBox } from './object-shapes.js';
import { answerText } from '../../files/layers/ontology-classes.js';
import { indexedPng, rgbOf } from '../../files/layers/png.js';
import { xml } from './xml-text.js';

/*
 * Pascal VOC: `Annotations/<name>.xml` per image (every area object as its enclosing box), the
 * image list `ImageSets/Main/default.txt`, `labelmap.txt`, and, when the ontology has mask
 * tools (polygon, segmentation, brush), `SegmentationClass/` and `SegmentationObject/` palette
 * PNGs. Coordinates are pixels with two decimals, not shifted to VOC's 1-based integers (as
 * CVAT writes them).
 */

const BOX_KINDS = new Set(['bounding-box', 'rotated-bounding-box', 'polygon', 'segmentation']);
const MASK_KINDS = new Set(['polygon', 'segmentation', 'brush']);

export const VOC_ABOUT = [
  'Pascal VOC. `Annotations/<image>.xml` per image, `ImageSets/Main/default.txt` the image names, `labelmap.txt` the classes and colours.',
  '',
  '- Boxes: `bndbox` in pixels with two decimals (not shifted to 1-based integers).',
  '- Rotated boxes: their enclosing box, with attributes `rotation` (degrees), `box_width` and `box_height` (the box before rotation).',
  '- Polygons and segmentation zones: their enclosing box in the XML, their area in `SegmentationClass/` (palette index = class line in labelmap.txt) and `SegmentationObject/` (index = object, in XML order).',
  '- Brush layers: in the two segmentation maps only, one object per brush class.',
  '- Classification answers: `attributes` of each object; image-level answers in `<attributes>` under `<annotation>`.',
  '- Video frames: one image each, `<video>_frame_000000.jpg`.',
  '- Not held by VOC: points, polylines, NER spans and other kinds, relations, holes outside the segmentation maps (counted below).',
];

function attributesXml(attrs: Record<string, unknown>, indent: string): string {
  const entries = Object.entries(attrs);
  if (!entries.length) return '';
  const inner = entries
    .map(([k, v]) => `${indent}  <attribute><name>${xml(k)}</name><value>${xml(answerText(v))}</value></attribute>\n`)
    .join('');
  return `${indent}<attributes>\n${inner}${indent}</attributes>\n`;
}

function objectXml(o: DatasetObject): string | undefined {
  const box = boundingBox(o);
  if (!box) return undefined;
  const attrs: Record<string, unknown> = { ...o.attributes };
  if (o.cls.tool === 'rotated-bounding-box') {
    const r = readRotatedBox(o.geometry);
    Object.assign(attrs, { rotation: r?.rotation ?? 0, box_width: r2(r?.width ?? 0), box_height: r2(r?.height ?? 0) });
  }
  return (
    `  <object>\n    <name>${xml(o.cls.name)}</name>\n    <pose>Unspecified</pose>\n    <truncated>0</truncated>\n` +
    `    <difficult>0</difficult>\n    <occluded>0</occluded>\n    <bndbox>\n      <xmin>${r2(box.x)}</xmin>\n` +
    `      <ymin>${r2(box.y)}</ymin>\n      <xmax>${r2(box.x + box.width)}</xmax>\n      <ymax>${r2(box.y + box.height)}</ymax>\n` +
    `    </bndbox>\n${attributesXml(attrs, '    ')}  </object>\n`
  );
}

function annotationXml(task: DatasetTask, fileName: string, objects: string[], segmented: boolean): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<annotation>\n  <folder></folder>\n  <filename>${xml(fileName)}</filename>\n` +
    `  <source><database>Annotary</database><annotation>${xml(task.url)}</annotation><image>${xml(task.externalId)}</image></source>\n` +
    `  <size>\n    <width>${task.width ?? 0}</width>\n    <height>${task.height ?? 0}</height>\n    <depth>3</depth>\n  </size>\n` +
    `  <segmented>${segmented ? 1 : 0}</segmented>\n${attributesXml(task.attributes, '  ')}${objects.join('')}</annotation>\n`
  );
}

export async function* vocEntries(src: DatasetSource): AsyncGenerator<ZipEntry> {
  const { classes } = src.ontology;
  // Class numbers are lines of labelmap.txt: background, then every class VOC holds.
  const vocClasses = classes.filter((c) => BOX_KINDS.has(c.tool) || MASK_KINDS.has(c.tool));
  const hasMasks = vocClasses.some((c) => MASK_KINDS.has(c.tool));
  const classNumber = new Map(vocClasses.map((c, i) => [c.schemaId, i + 1]));
  const palette = [[0, 0, 0] as [number, number, number], ...vocClasses.map((c) => rgbOf(c.color))];
  const names: string[] = [];
  for await (const task of src.tasks()) {
    for (const { frame, objects } of framesOf(task)) {
      const layer = await src.brush(task, frame);
      const stem = frame === undefined ? task.stem : `${task.stem}_frame_${String(frame).padStart(6, '0')}`;
      const fileName = frame === undefined ? task.fileName : `${stem}.jpg`;
      src.report.images++;
      names.push(stem);
      const xmlObjects: string[] = [];
      for (const o of objects) {
        const text = BOX_KINDS.has(o.cls.tool) ? objectXml(o) : undefined;
        if (text) {
          xmlObjects.push(text);
          src.report.keep(`${o.cls.tool} objects`);
        } else src.report.drop(`${o.cls.tool} objects (VOC cannot hold them)`);
      }
      const masked = objects.filter((o) => MASK_KINDS.has(o.cls.tool));
      const wantsMasks = hasMasks && (masked.length > 0 || !!layer);
      const segmented = wantsMasks && !!task.width && !!task.height;
      if (wantsMasks && !segmented) src.report.drop('segmentation maps of images of unknown size');
      yield { name: `Annotations/${stem}.xml`, data: annotationXml(task, fileName, xmlObjects, segmented) };
      if (!segmented) continue;
      const maps = maskMaps(task.width as number, task.height as number, masked, layer, classNumber);
      yield { name: `SegmentationClass/${stem}.png`, data: indexedPng(maps.classMap, palette) };
      const objectMap = { ...maps.classMap, data: Uint8Array.from(maps.instanceMap, (v) => Math.min(v, 255)) };
      const objectPalette = Array.from({ length: Math.min(256, maps.instances.length + 1) }, (_, i) => vocColour(i));
      yield { name: `SegmentationObject/${stem}.png`, data: indexedPng(objectMap, objectPalette) };
      src.report.keep('segmentation map pairs');
    }
  }
  yield { name: 'ImageSets/Main/default.txt', data: names.length ? `${names.join('\n')}\n` : '' };
  const labelmap = ['# label:color_rgb:parts:actions', 'background:0,0,0::'];
  for (const c of vocClasses) {
    labelmap.push(`${c.name.replace(/[:\n]/g, ' ')}:${rgbOf(c.color).join(',')}::`);
  }
  yield { name: 'labelmap.txt', data: `${labelmap.join('\n')}\n` };
  yield { name: 'README.md', data: src.report.readme('Pascal VOC export', VOC_ABOUT) };
}
