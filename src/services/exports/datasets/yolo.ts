import { stringify } from 'yaml';
import type { BrushLayer } from '../../files/layers/brush-layers.js';
import type { DatasetSource } from './dataset-source.js';
import { type DatasetTask, framesOf } from './dataset-task.js';
import type { ZipEntry } from './dataset-zip.js';
import type { Pt } from './geometry.js';
import { areaFills, boundingBox } from './object-shapes.js';
import type { DatasetClass } from '../../files/layers/ontology-classes.js';
import { bridgeHoles, brushRings } from './yolo-polygons.js';

/*
 * A YOLO dataset folder (Ultralytics layout): `data.yaml` with the class names, `images.txt`
 * listing where each image goes (`images/<file name>`), `image-sources.csv` with the URL to fetch
 * it from, and `labels/<name>.txt` per image. One task per dataset, as YOLO trainers read one:
 * `segment` when the ontology has polygons, segmentation or brush, else `obb` with rotated boxes, else
 * `detect`. Coordinates are normalised by the image size and clipped to [0, 1].
 */

type YoloTask = 'detect' | 'segment' | 'obb';
const YOLO_KINDS = new Set(['bounding-box', 'rotated-bounding-box', 'polygon', 'segmentation', 'brush']);

export const YOLO_ABOUT = [
  'A YOLO dataset (Ultralytics layout). Put each image at the path `images.txt` lists (`image-sources.csv` gives its URL),',
  'then train with `data.yaml`. Label files are `labels/<image name without extension>.txt`, one object a line, class first.',
  '',
  '- `detect` (boxes only): `class cx cy w h`, normalised by the image size.',
  '- `obb` (rotated boxes in the ontology): `class x1 y1 x2 y2 x3 y3 x4 y4`, the four corners; boxes too.',
  '- `segment` (polygons, segmentation or brush in the ontology): `class x1 y1 ... xn yn`; boxes and rotated boxes as their corners, each segmentation zone a line of its own.',
  '- Holes (of segmentation zones and brush layers) are cut into their zone: the line goes from the outline to the hole, round it and back on the same edge, as Ultralytics merges segments; its area is the zone less its holes.',
  '- Brush layers: the pixels of each brush class traced along pixel edges, each connected area a line (vertices on pixel corners, so a line encloses exactly its pixels).',
  '- Class numbers count the ontology tools YOLO can hold, in ontology order (names in `data.yaml`).',
  "- Video frames are images `<video>_frame_000000.jpg` (frame from 0), each frame with an object or a brush layer; a frame's brush layer is traced as a still image's.",
  '- Not held by YOLO: points, polylines, NER spans, classifications, relations; images of unknown size get no labels (counted below).',
];

const f6 = (v: number) => String(Math.round(Math.min(1, Math.max(0, v)) * 1e6) / 1e6);

function yoloTask(classes: readonly DatasetClass[]): YoloTask {
  if (classes.some((c) => c.tool === 'polygon' || c.tool === 'segmentation' || c.tool === 'brush')) return 'segment';
  return classes.some((c) => c.tool === 'rotated-bounding-box') ? 'obb' : 'detect';
}

function ringLine(id: number, ring: readonly Pt[], w: number, h: number): string {
  return [id, ...ring.flatMap(([x, y]) => [f6(x / w), f6(y / h)])].join(' ');
}

function labelLines(
  objects: DatasetTask['objects'],
  size: { w: number; h: number },
  mode: YoloTask,
  ids: Map<string, number>,
  src: DatasetSource,
) {
  const lines: string[] = [];
  const { w, h } = size;
  for (const o of objects) {
    const id = ids.get(o.cls.schemaId);
    if (id === undefined || o.cls.tool === 'brush') {
      src.report.drop(`${o.cls.tool} objects (YOLO cannot hold them)`);
      continue;
    }
    const fills = areaFills(o);
    const box = boundingBox(o);
    if (!fills || !box) {
      src.report.drop(`${o.cls.tool} objects of the wrong shape`);
      continue;
    }
    if (mode === 'detect') {
      lines.push(
        [
          id,
          f6((box.x + box.width / 2) / w),
          f6((box.y + box.height / 2) / h),
          f6(box.width / w),
          f6(box.height / h),
        ].join(' '),
      );
    } else {
      for (const [region, ...holes] of fills) lines.push(ringLine(id, bridgeHoles(region ?? [], holes), w, h));
    }
    src.report.keep(`${o.cls.tool} labels`);
  }
  return lines;
}

/** A brush layer's lines: per brush class, each connected area traced, its holes cut in. */
function brushLines(layer: BrushLayer, ids: Map<string, number>, size: { w: number; h: number }, src: DatasetSource) {
  const lines: string[] = [];
  for (const { classIndex, rings } of brushRings(layer)) {
    const id = ids.get(layer.classes[classIndex]?.schemaId ?? '');
    if (id === undefined) continue;
    for (const ring of rings) lines.push(ringLine(id, ring, size.w, size.h));
    src.report.keep('brush labels (one per connected area of a class)', rings.length);
  }
  return lines;
}

export async function* yoloEntries(src: DatasetSource): AsyncGenerator<ZipEntry> {
  const classes = src.ontology.classes.filter((c) => YOLO_KINDS.has(c.tool));
  const mode = yoloTask(classes);
  const ids = new Map(classes.map((c, i) => [c.schemaId, i]));
  const images: string[] = [];
  const sources: string[] = ['file_name,url,asset_id,frame_index'];
  const csv = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  for await (const task of src.tasks()) {
    for (const { frame, objects } of framesOf(task)) {
      const layer = await src.brush(task, frame);
      const w = task.width ?? layer?.raster.width;
      const h = task.height ?? layer?.raster.height;
      const stem = frame === undefined ? task.stem : `${task.stem}_frame_${String(frame).padStart(6, '0')}`;
      const fileName = frame === undefined ? task.fileName : `${stem}.jpg`;
      src.report.images++;
      images.push(`images/${fileName}`);
      sources.push([csv(fileName), csv(task.url), task.assetId, frame ?? ''].join(','));
      if (!w || !h) {
        src.report.drop('objects on images of unknown size (YOLO needs it to normalise)', objects.length);
        yield { name: `labels/${stem}.txt`, data: '' };
        continue;
      }
      const lines = labelLines(objects, { w, h }, mode, ids, src);
      if (layer) lines.push(...brushLines(layer, ids, { w, h }, src));
      yield { name: `labels/${stem}.txt`, data: lines.length ? `${lines.join('\n')}\n` : '' };
    }
    if (Object.keys(task.attributes).length)
      src.report.drop('classification answers of images (YOLO cannot hold them)');
  }
  yield { name: 'images.txt', data: images.length ? `${images.join('\n')}\n` : '' };
  yield { name: 'image-sources.csv', data: `${sources.join('\n')}\n` };
  const names = Object.fromEntries(classes.map((c, i) => [i, c.name]));
  yield {
    name: 'data.yaml',
    data: stringify({ path: '.', train: 'images.txt', val: 'images.txt', task: mode, nc: classes.length, names }),
  };
  yield { name: 'README.md', data: src.report.readme(`YOLO export (${mode})`, YOLO_ABOUT) };
}
