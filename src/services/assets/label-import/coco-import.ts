import { ImportFileError, type ImportedImage, type ImportedObject, type ImportedShape } from './imported-labels.js';
import type { ImportFiles } from './import-files.js';
import { IMPORT_LIMITS, tooManyImages, tooManyObjectsIn } from './import-limits.js';
import type { ImportReport } from './import-report.js';
import { jsonArrayItems, jsonTopLevel } from './json-items.js';

/*
 * COCO instances JSON (a `.json` file, or the first one of a zip, `annotations/` first): images by
 * file name (and Annotary's own `asset_id`, `external_id`), categories by name, annotations as
 * boxes, polygons (several: segmentation zones), RLE masks (uncompressed counts or the
 * compressed string of pycocotools), keypoints; `attributes` become answers; frames of a video
 * (`video_id`, `frame_index`) become one asset's entries with `page`.
 */

type Json = Record<string, unknown>;
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** pycocotools' compressed RLE string (rleFrString). */
export function decodeCocoString(s: string): number[] {
  const counts: number[] = [];
  let p = 0;
  while (p < s.length) {
    let x = 0;
    let k = 0;
    let more = 1;
    while (more) {
      const c = s.charCodeAt(p) - 48;
      x |= (c & 0x1f) << (5 * k);
      more = c & 0x20;
      p++;
      k++;
      if (!more && c & 0x10) x |= -1 << (5 * k);
    }
    if (counts.length > 2) x += counts[counts.length - 2] as number;
    counts.push(x);
  }
  return counts;
}

function rleMask(seg: Json): ImportedShape | undefined {
  const size = seg.size;
  if (!Array.isArray(size) || !num(size[0]) || !num(size[1])) return undefined;
  const [h, w] = size as [number, number];
  const counts = typeof seg.counts === 'string' ? decodeCocoString(seg.counts) : seg.counts;
  if (!Array.isArray(counts) || !counts.every((c) => num(c) && c >= 0)) return undefined;
  if ((counts as number[]).reduce((a, b) => a + b, 0) !== w * h) return undefined;
  const pixels = new Uint8Array(w * h);
  let pos = 0;
  (counts as number[]).forEach((c, k) => {
    if (k % 2 === 1) for (let q = pos; q < pos + c; q++) pixels[(q % h) * w + Math.floor(q / h)] = 1;
    pos += c;
  });
  return { kind: 'mask', width: w, height: h, pixels };
}

const pairs = (flat: unknown): [number, number][] | undefined => {
  if (!Array.isArray(flat) || flat.length < 6 || flat.length % 2 || !flat.every(num)) return undefined;
  const out: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i] as number, flat[i + 1] as number]);
  return out;
};

function shapeOf(a: Json, attributes: Json): ImportedShape | undefined {
  if (Array.isArray(a.keypoints) && a.keypoints.length >= 3) {
    const [x, y, v] = a.keypoints as number[];
    return num(x) && num(y) && v !== 0 ? { kind: 'point', point: [x, y] } : undefined;
  }
  const seg = a.segmentation;
  if (seg && typeof seg === 'object' && !Array.isArray(seg)) return rleMask(seg as Json);
  if (Array.isArray(seg) && seg.length) {
    const rings = seg.map(pairs);
    if (!rings.every((r) => r)) return undefined;
    const points = rings as [number, number][][];
    if (num(attributes.rotation) && points.length === 1 && points[0]?.length === 4) {
      const [p0, p1, p2] = points[0] as [number, number][];
      const width = Math.hypot(p1![0] - p0![0], p1![1] - p0![1]);
      const height = Math.hypot(p2![0] - p1![0], p2![1] - p1![1]);
      const cx = points[0]!.reduce((s, p) => s + p[0], 0) / 4;
      const cy = points[0]!.reduce((s, p) => s + p[1], 0) / 4;
      return {
        kind: 'rotated-bounding-box',
        box: { x: cx - width / 2, y: cy - height / 2, width, height, rotation: attributes.rotation },
      };
    }
    if (points.length === 1) return { kind: 'polygon', points: points[0] as [number, number][] };
    return { kind: 'segmentation', zones: points.map((region) => ({ region, holes: [] })) };
  }
  const b = a.bbox;
  if (Array.isArray(b) && b.length === 4 && b.every(num) && (b[2] as number) > 0 && (b[3] as number) > 0) {
    return {
      kind: 'bounding-box',
      box: { x: b[0] as number, y: b[1] as number, width: b[2] as number, height: b[3] as number },
    };
  }
  return undefined;
}

const basename = (name: string) => name.split(/[\\/]/).pop() ?? name;

/** Pass one: categories and images (small beside the annotations, which are skipped). */
async function imagesAndCategories(files: ImportFiles, name: string) {
  const categories = new Map<unknown, string>();
  let images: Json[] | undefined;
  for await (const { key, value } of jsonTopLevel(files, name, 'annotations')) {
    if (key === 'images' && Array.isArray(value)) images = value as Json[];
    if (key === 'categories' && Array.isArray(value)) {
      for (const c of value as Json[]) if (c && typeof c === 'object') categories.set(c.id, String(c.name ?? c.id));
    }
  }
  if (!images) throw new ImportFileError(`"${name}" is not COCO instances JSON: it needs an "images" list`);
  if (images.length > IMPORT_LIMITS.images) throw tooManyImages();
  return { categories, images: new Map(images.filter((im) => im && typeof im === 'object').map((im) => [im.id, im])) };
}

/** An image of the file, with no objects yet; frames of a video name the video as their asset. */
function importedImage(im: Json): ImportedImage {
  const videoId = typeof im.video_id === 'string' ? im.video_id : undefined;
  const fileName = String(im.file_name ?? '');
  return {
    source: fileName || String(im.id),
    assetId: videoId ?? (typeof im.asset_id === 'string' ? im.asset_id : undefined),
    externalId: typeof im.external_id === 'string' ? im.external_id : undefined,
    fileName: videoId ? undefined : basename(fileName),
    width: num(im.width) ? im.width : undefined,
    height: num(im.height) ? im.height : undefined,
    objects: [],
    classifications: im.attributes && typeof im.attributes === 'object' ? (im.attributes as Json) : {},
  };
}

function objectOf(a: Json, im: Json, categories: Map<unknown, string>): ImportedObject | undefined {
  const attributes = { ...((a.attributes as Json | undefined) ?? {}) };
  const shape = shapeOf(a, attributes);
  if (!shape) return undefined;
  delete attributes.rotation;
  return {
    category: categories.get(a.category_id) ?? String(a.category_id),
    shape,
    objectId: typeof a.object_id === 'string' ? a.object_id : undefined,
    page: num(im.frame_index) ? im.frame_index : undefined,
    attributes,
  };
}

/**
 * Two passes over the file, each parsed as it is read: images and categories first (COCO puts
 * categories anywhere), then the annotations one by one. Annotations of one image come together
 * in the files tools write, so an image is handed on as soon as the next one starts; an image
 * met again later is handed on again, and the service adds its objects to the same task.
 */
export async function* cocoImages(files: ImportFiles, report: ImportReport): AsyncGenerator<ImportedImage> {
  const jsonFiles = files.names.filter((n) => n === 'file' || n.toLowerCase().endsWith('.json'));
  const name = jsonFiles.find((n) => n.startsWith('annotations/')) ?? jsonFiles[0];
  if (!name) throw new ImportFileError('no COCO JSON file was found (a .json file, or annotations/*.json in a zip)');
  const { categories, images } = await imagesAndCategories(files, name);
  report.images += images.size;
  const handed = new Set<unknown>();
  let current: { id: unknown; image: ImportedImage } | undefined;
  for await (const item of jsonArrayItems(files, name, 'annotations')) {
    const a = (item && typeof item === 'object' ? item : {}) as Json;
    if (!current || current.id !== a.image_id) {
      if (current) yield current.image;
      current = undefined;
      const im = images.get(a.image_id);
      if (!im) {
        report.skip('COCO annotations of an image the file does not list');
        continue;
      }
      current = { id: a.image_id, image: importedImage(im) };
      // Image answers travel with the image's first hand-over only.
      if (handed.has(a.image_id)) current.image.classifications = {};
      handed.add(a.image_id);
    }
    const o = objectOf(a, images.get(a.image_id) as Json, categories);
    if (!o) report.skip('COCO annotations with no usable bbox, segmentation or keypoints');
    else if (current.image.objects.push(o) > IMPORT_LIMITS.objectsPerImage) {
      throw tooManyObjectsIn(current.image.source);
    }
  }
  if (current) yield current.image;
  // Images with no annotation still bring their answers (a video's frames only when they have some).
  for (const [id, im] of images) {
    const image = importedImage(im);
    if (!handed.has(id) && (!im.video_id || Object.keys(image.classifications).length)) yield image;
  }
}
