import { Spool } from '../../../adapters/storage/listing-spool.js';
import { ChunkWriter } from '../export-chunks.js';
import type { DatasetSource } from './dataset-source.js';
import { type DatasetObject, type DatasetTask, framesOf } from './dataset-task.js';
import type { ZipEntry } from './dataset-zip.js';
import { r2, readPoint, readRotatedBox, ringArea } from './geometry.js';
import { areaFills, boundingBox, hasHoles, paintObject } from './object-shapes.js';
import { countPixels, emptyRaster, encodeRle, pixelBox } from '../../files/layers/raster.js';

/*
 * COCO instances JSON. Images stream straight into the file while annotations go to a spool
 * (a temporary file past 1 MiB) appended after them, so one pass over the tasks writes
 * `images` before `annotations` in flat memory.
 */

const COCO_KINDS = new Set(['bounding-box', 'rotated-bounding-box', 'polygon', 'segmentation', 'point', 'brush']);
export const COCO_FILE = 'annotations/instances.json';

export const COCO_ABOUT = [
  'COCO instances JSON (`annotations/instances.json`); images are listed by file name with their URL (`coco_url`).',
  '',
  '- Categories: one per tool of the ontology that COCO can hold (id = position + 1, `name` = title, `supercategory` = tool kind).',
  '- Boxes: `bbox` [x, y, width, height] in pixels, `segmentation` empty.',
  '- Rotated boxes: `segmentation` = the four corners, `bbox` the enclosing box, `attributes.rotation` in degrees.',
  '- Polygons and segmentation zones without holes: `segmentation` polygons; zones with holes: RLE (`iscrowd` 0).',
  "- Brush layers: one RLE annotation per brush class and image (a video's on each frame with a layer), `iscrowd` 1.",
  '- Points: one annotation each, `keypoints` [x, y, 2], `num_keypoints` 1.',
  '- Classification answers: `attributes` (option values, not ids) on the image and on each object; `object_id` keeps the object id.',
  '- Video frames: one image per frame with an object or a brush layer, `frame_index` (from 0) and `video_id` (the asset id); file names `<video>/frame_000000.jpg`.',
  '- Not held by COCO: polylines, NER spans, PDF areas, cuboids, angles, medical volumes, relations (counted below).',
];

interface Ids {
  image: number;
  annotation: number;
}

function imageJson(task: DatasetTask, id: number, frame: number | undefined, width?: number, height?: number) {
  const fileName = frame === undefined ? task.fileName : `${task.stem}/frame_${String(frame).padStart(6, '0')}.jpg`;
  const image: Record<string, unknown> = {
    id,
    file_name: fileName,
    width: width ?? task.width ?? null,
    height: height ?? task.height ?? null,
    coco_url: task.url,
    asset_id: task.assetId,
    external_id: task.externalId,
    task_id: task.taskId,
  };
  if (frame !== undefined) Object.assign(image, { frame_index: frame, video_id: task.assetId });
  if (Object.keys(task.attributes).length) image.attributes = task.attributes;
  return image;
}

/** One object's annotation, or the reason COCO cannot hold it. */
function annotation(o: DatasetObject, imageId: number, id: number, size: { w?: number; h?: number }) {
  const base = { id, image_id: imageId, category_id: o.cls.index + 1, object_id: o.objectId, iscrowd: 0 };
  const attributes: Record<string, unknown> = { ...o.attributes };
  if (o.cls.tool === 'point') {
    const p = readPoint(o.geometry);
    if (!p) return 'points of the wrong shape';
    return {
      ...base,
      keypoints: [r2(p[0]), r2(p[1]), 2],
      num_keypoints: 1,
      bbox: [r2(p[0]), r2(p[1]), 0, 0],
      area: 0,
      segmentation: [],
      attributes,
    };
  }
  const fills = areaFills(o);
  const box = boundingBox(o);
  if (!fills || !box) return `${o.cls.tool} objects of the wrong shape`;
  const bbox = [r2(box.x), r2(box.y), r2(box.width), r2(box.height)];
  if (o.cls.tool === 'bounding-box') {
    return { ...base, bbox, area: r2(box.width * box.height), segmentation: [], attributes };
  }
  if (o.cls.tool === 'rotated-bounding-box') attributes.rotation = readRotatedBox(o.geometry)?.rotation ?? 0;
  if (hasHoles(o)) {
    if (!size.w || !size.h) return 'segmentation zones with holes on images of unknown size';
    const raster = emptyRaster(size.w, size.h);
    paintObject(raster, o, 1);
    return { ...base, bbox, area: countPixels(raster), segmentation: encodeRle(raster), attributes };
  }
  const rings = fills.map((rings) => rings[0] ?? []);
  return {
    ...base,
    bbox,
    area: r2(rings.reduce((sum, ring) => sum + ringArea(ring), 0)),
    segmentation: rings.map((ring) => ring.flatMap(([x, y]) => [r2(x), r2(y)])),
    attributes,
  };
}

async function* cocoFile(src: DatasetSource, ids: Ids): AsyncGenerator<Buffer> {
  const out = new ChunkWriter();
  const categories = src.ontology.classes
    .filter((c) => COCO_KINDS.has(c.tool))
    .map((c) => ({
      id: c.index + 1,
      name: c.name,
      supercategory: c.tool,
      schema_id: c.schemaId,
      ...(c.tool === 'point' ? { keypoints: [c.name], skeleton: [] } : {}),
    }));
  const info = { description: 'Annotary export', version: '1.0', date_created: new Date().toISOString() };
  out.write(`{"info":${JSON.stringify(info)},"licenses":[],"categories":${JSON.stringify(categories)},"images":[`);
  const annotations = new Spool(undefined, 'annotary-coco');
  let firstAnnotation = true;
  const addAnnotation = async (a: object) => {
    await annotations.write((firstAnnotation ? '\n' : ',\n') + JSON.stringify(a));
    firstAnnotation = false;
  };
  try {
    for await (const task of src.tasks()) {
      for (const { frame, objects } of framesOf(task)) {
        const layer = await src.brush(task, frame);
        const w = task.width ?? layer?.raster.width;
        const h = task.height ?? layer?.raster.height;
        const imageId = ++ids.image;
        out.write((imageId > 1 ? ',\n' : '\n') + JSON.stringify(imageJson(task, imageId, frame, w, h)));
        src.report.images++;
        for (const o of objects) {
          if (!COCO_KINDS.has(o.cls.tool) || o.cls.tool === 'brush') {
            src.report.drop(`${o.cls.tool} objects (COCO cannot hold them)`);
            continue;
          }
          const a = annotation(o, imageId, ids.annotation + 1, { w, h });
          if (typeof a === 'string') src.report.drop(a);
          else {
            ids.annotation++;
            src.report.keep(`${o.cls.tool} annotations`);
            await addAnnotation(a);
          }
        }
        if (layer) {
          for (const [k, cls] of layer.classes.entries()) {
            const box = pixelBox(layer.raster, k + 1);
            if (!box) continue;
            const rle = encodeRle(layer.raster, k + 1);
            ids.annotation++;
            src.report.keep('brush annotations (RLE, one per class and image)');
            await addAnnotation({
              id: ids.annotation,
              image_id: imageId,
              category_id: cls.index + 1,
              iscrowd: 1,
              bbox: box,
              area: countPixels(layer.raster, k + 1),
              segmentation: rle,
            });
          }
        }
      }
      yield* out.take();
    }
    out.write('\n],"annotations":[');
    // Everything written so far, the partly filled chunk too, goes before the spooled annotations.
    yield* out.end();
    yield* (async function* () {
      for await (const chunk of annotations.chunks()) yield Buffer.from(chunk);
    })();
    out.write('\n]}\n');
    yield* out.end();
  } finally {
    await annotations.discard();
  }
}

export async function* cocoEntries(src: DatasetSource): AsyncGenerator<ZipEntry> {
  const ids: Ids = { image: 0, annotation: 0 };
  yield { name: COCO_FILE, data: cocoFile(src, ids) };
  yield { name: 'README.md', data: src.report.readme('COCO export', COCO_ABOUT) };
}
