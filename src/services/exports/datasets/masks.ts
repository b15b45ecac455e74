import { Spool } from '../../../adapters/storage/listing-spool.js';
import type { DatasetSource } from './dataset-source.js';
import { framesOf } from './dataset-task.js';
import type { ZipEntry } from './dataset-zip.js';
import { maskMaps } from './mask-maps.js';
import { grey16Png, indexedPng, rgbOf } from '../../files/layers/png.js';

/*
 * Masks: per image a class-index map `class/<name>.png` (8-bit palette PNG: the value is the
 * class id of `classes.json`, 0 background, the palette its colour) and an instance map
 * `instance/<name>.png` (16-bit greyscale: the value is the instance id, 0 none), with
 * `instances.ndjson` saying which object and class each instance id is.
 */

const AREA_KINDS = new Set(['bounding-box', 'rotated-bounding-box', 'polygon', 'segmentation', 'brush']);

export const MASKS_ABOUT = [
  'Masks, one pair of PNGs per image the size of the image:',
  '',
  '- `class/<image>.png`: 8-bit palette PNG, value = class `id` of `classes.json` (0 = background); the palette holds the class colours.',
  '- `instance/<image>.png`: 16-bit greyscale PNG, value = instance id (0 = none); `instances.ndjson` gives each id its `objectId` and class.',
  '- Painted: boxes, rotated boxes, polygons, segmentation zones (holes left empty) and brush layers (one instance per brush class); later objects cover earlier ones.',
  "- Video frames: one pair per frame with an object or a brush layer (the frame's own), `<video>_frame_000000.png`.",
  '- Not held by masks: points, polylines, NER spans and other kinds, classifications, relations; images of unknown size get no maps (counted below).',
];

export async function* masksEntries(src: DatasetSource): AsyncGenerator<ZipEntry> {
  const classes = src.ontology.classes.filter((c) => AREA_KINDS.has(c.tool));
  const classNumber = new Map(classes.map((c, i) => [c.schemaId, i + 1]));
  const palette = [[0, 0, 0] as [number, number, number], ...classes.map((c) => rgbOf(c.color))];
  // One line per instance: millions in a large project, so kept in a spool, not in memory.
  const instanceLines = new Spool(undefined, 'annotary-masks');
  try {
    for await (const task of src.tasks()) {
      for (const { frame, objects } of framesOf(task)) {
        const layer = await src.brush(task, frame);
        const width = task.width ?? layer?.raster.width;
        const height = task.height ?? layer?.raster.height;
        const stem = frame === undefined ? task.stem : `${task.stem}_frame_${String(frame).padStart(6, '0')}`;
        src.report.images++;
        const painted = objects.filter((o) => classNumber.has(o.cls.schemaId));
        src.report.drop('objects of kinds masks cannot hold', objects.length - painted.length);
        if (!width || !height) {
          src.report.drop('objects on images of unknown size', painted.length);
          continue;
        }
        const maps = maskMaps(width, height, painted, layer, classNumber);
        yield { name: `class/${stem}.png`, data: indexedPng(maps.classMap, palette) };
        yield { name: `instance/${stem}.png`, data: grey16Png(width, height, maps.instanceMap) };
        for (const i of maps.instances) {
          await instanceLines.write(
            `${JSON.stringify({ image: `${stem}.png`, instance: i.id, objectId: i.objectId, classId: classNumber.get(i.cls.schemaId), class: i.cls.name })}\n`,
          );
        }
        src.report.keep('painted objects', maps.instances.length);
      }
    }
    yield { name: 'instances.ndjson', data: instanceLines.chunks() };
  } finally {
    await instanceLines.discard();
  }
  const table = classes.map((c, i) => ({
    id: i + 1,
    name: c.name,
    schemaId: c.schemaId,
    tool: c.tool,
    color: rgbOf(c.color),
  }));
  yield {
    name: 'classes.json',
    data: `${JSON.stringify([{ id: 0, name: 'background', color: [0, 0, 0] }, ...table], null, 2)}\n`,
  };
  yield { name: 'README.md', data: src.report.readme('Masks export', MASKS_ABOUT) };
}
