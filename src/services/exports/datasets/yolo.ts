import { stringify } from 'yaml';
import type { DatasetSource } from './dataset-source.js';
import { type DatasetTask, framesOf } from './dataset-task.js';
import type { ZipEntry } from './dataset-zip.js';
import type { Pt } from './geometry.js';
import { readZones } from './geometry.js';
import { areaFills, boundingBox } from './object-shapes.js';
import type { DatasetClass } from './ontology-classes.js';

/*
 * A YOLO dataset folder (Ultralytics layout): `data.yaml` with the class names, `images.txt`
 * listing where each image goes (`images/<file name>`), `image-sources.csv` with the URL to fetch
 * it from, and `labels/<name>.txt` per image. One task per dataset, as YOLO trainers read one:
 * `segment` when the ontology has polygons or segmentation, else `obb` with rotated boxes, else
 * `detect`. Coordinates are normalised by the image size and clipped to [0, 1].
 */

type YoloTask = 'detect' | 'segment' | 'obb';
const YOLO_KINDS = new Set(['bounding-box', 'rotated-bounding-box', 'polygon', 'segmentation']);

export const YOLO_ABOUT = [
  'A YOLO dataset (Ultralytics layout). Put each image at the path `images.txt` lists (`image-sources.csv` gives its URL),',
  'then train with `data.yaml`. Label files are `labels/<image name without extension>.txt`, one object a line, class first.',
  '',
  '- `detect` (boxes only): `class cx cy w h`, normalised by the image size.',
  '- `obb` (rotated boxes in the ontology): `class x1 y1 x2 y2 x3 y3 x4 y4`, the four corners; boxes too.',
  '- `segment` (polygons or segmentation in the ontology): `class x1 y1 ... xn yn`; boxes and rotated boxes as their corners, each segmentation zone a line of its own.',
  '- Class numbers count the ontology tools YOLO can hold, in ontology order (names in `data.yaml`).',
  '- Video frames are images `<video>_frame_000000.jpg` (frame from 0).',
  '- Not held by YOLO: holes of segmentation zones, points, polylines, brush layers, NER spans, classifications, relations; images of unknown size get no labels (counted below).',
];

const f6 = (v: number) => String(Math.round(Math.min(1, Math.max(0, v)) * 1e6) / 1e6);

function yoloTask(classes: readonly DatasetClass[]): YoloTask {
  if (classes.some((c) => c.tool === 'polygon' || c.tool === 'segmentation')) return 'segment';
  return classes.some((c) => c.tool === 'rotated-bounding-box') ? 'obb' : 'detect';
}

function ringLine(id: number, ring: readonly Pt[], w: number, h: number): string {
  return [id, ...ring.flatMap(([x, y]) => [f6(x / w), f6(y / h)])].join(' ');
}

function labelLines(
  task: DatasetTask,
  objects: DatasetTask['objects'],
  mode: YoloTask,
  ids: Map<string, number>,
  src: DatasetSource,
) {
  const lines: string[] = [];
  const w = task.width as number;
  const h = task.height as number;
  for (const o of objects) {
    const id = ids.get(o.cls.schemaId);
    if (id === undefined) {
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
      for (const rings of fills) lines.push(ringLine(id, rings[0] ?? [], w, h));
      const holes =
        o.cls.tool === 'segmentation' ? (readZones(o.geometry) ?? []).reduce((n, z) => n + z.holes.length, 0) : 0;
      src.report.drop('holes of segmentation zones (YOLO polygons cannot hold them)', holes);
    }
    src.report.keep(`${o.cls.tool} labels`);
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
      const stem = frame === undefined ? task.stem : `${task.stem}_frame_${String(frame).padStart(6, '0')}`;
      const fileName = frame === undefined ? task.fileName : `${stem}.jpg`;
      src.report.images++;
      images.push(`images/${fileName}`);
      sources.push([csv(fileName), csv(task.url), task.assetId, frame ?? ''].join(','));
      if (!task.width || !task.height) {
        src.report.drop('objects on images of unknown size (YOLO needs it to normalise)', objects.length);
        yield { name: `labels/${stem}.txt`, data: '' };
        continue;
      }
      const lines = labelLines(task, objects, mode, ids, src);
      yield { name: `labels/${stem}.txt`, data: lines.length ? `${lines.join('\n')}\n` : '' };
    }
    if (task.brushDataUrl) src.report.drop('brush layers (YOLO cannot hold them)');
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
