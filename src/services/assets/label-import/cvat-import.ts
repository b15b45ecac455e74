import { ImportFileError, type ImportedImage, type ImportedObject, type ImportedShape } from './imported-labels.js';
import type { ImportFiles } from './import-files.js';
import { IMPORT_LIMITS, tooManyObjectsIn } from './import-limits.js';
import type { ImportReport } from './import-report.js';
import { childrenOf, type XmlElement, xmlChildrenOfRoot } from './xml-elements.js';

/*
 * CVAT 1.1 XML: `annotations.xml` (CVAT for images: `image` elements with box, polygon,
 * polyline, points, mask and tag) and CVAT for video files (`track` elements, a shape per
 * frame, `outside` from where the object is gone), matched to the video by the task name.
 * Read as it is parsed: an image is converted as soon as its element closes.
 */

const number = (v: string | undefined) => Number(v ?? '');

function points(v: string | undefined): [number, number][] | undefined {
  const out = (v ?? '').split(';').map((p) => p.split(',').map(Number) as [number, number]);
  return out.every((p) => p.length === 2 && p.every(Number.isFinite)) ? out : undefined;
}

function attributesOf(el: XmlElement): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of childrenOf(el, 'attribute')) out[a.attributes.name ?? ''] = a.text.trim();
  return out;
}

function maskShape(el: XmlElement, width: number, height: number): ImportedShape | undefined {
  const at = el.attributes;
  const counts = (at.rle ?? '').split(',').map(Number);
  const [left, top, w, h] = [at.left, at.top, at.width, at.height].map(number) as number[];
  if (!counts.every(Number.isFinite) || ![left, top, w, h].every(Number.isFinite) || !width || !height)
    return undefined;
  const pixels = new Uint8Array(width * height);
  let pos = 0;
  counts.forEach((c, k) => {
    if (k % 2 === 1) {
      for (let q = pos; q < pos + c; q++) {
        const x = (left as number) + (q % (w as number));
        const y = (top as number) + Math.floor(q / (w as number));
        if (x < width && y < height) pixels[y * width + x] = 1;
      }
    }
    pos += c;
  });
  return { kind: 'mask', width, height, pixels };
}

function shapeOf(tag: string, el: XmlElement, width: number, height: number): ImportedShape | undefined {
  const at = el.attributes;
  if (tag === 'box') {
    const [x1, y1, x2, y2] = [at.xtl, at.ytl, at.xbr, at.ybr].map(number) as number[];
    if (![x1, y1, x2, y2].every(Number.isFinite)) return undefined;
    const box = {
      x: x1 as number,
      y: y1 as number,
      width: (x2 as number) - (x1 as number),
      height: (y2 as number) - (y1 as number),
    };
    const rotation = number(at.rotation);
    return rotation ? { kind: 'rotated-bounding-box', box: { ...box, rotation } } : { kind: 'bounding-box', box };
  }
  if (tag === 'mask') return maskShape(el, width, height);
  const p = points(at.points);
  if (!p) return undefined;
  if (tag === 'points') return p[0] ? { kind: 'point', point: p[0] } : undefined;
  return tag === 'polyline' ? { kind: 'polyline', points: p } : { kind: 'polygon', points: p };
}

const SHAPES = ['box', 'polygon', 'polyline', 'points', 'mask'];

function shapesOf(
  el: XmlElement,
  width: number,
  height: number,
  report: ImportReport,
  extra: (s: XmlElement) => Partial<ImportedObject>,
) {
  const out: ImportedObject[] = [];
  for (const s of el.children) {
    if (!SHAPES.includes(s.name)) continue;
    const shape = shapeOf(s.name, s, width, height);
    if (!shape) report.skip(`CVAT ${s.name} elements that cannot be read`);
    else out.push({ category: s.attributes.label ?? '', shape, attributes: attributesOf(s), ...extra(s) });
  }
  return out;
}

function imageOf(name: string, im: XmlElement, report: ImportReport): ImportedImage {
  const width = number(im.attributes.width);
  const height = number(im.attributes.height);
  const classifications: Record<string, unknown> = {};
  for (const tag of childrenOf(im, 'tag')) Object.assign(classifications, attributesOf(tag));
  const fileName = im.attributes.name ?? '';
  return {
    source: `${name}: ${fileName}`,
    fileName: fileName.split('/').pop(),
    width: width || undefined,
    height: height || undefined,
    objects: shapesOf(im, width, height, report, () => ({})),
    classifications,
  };
}

export async function* cvatImages(files: ImportFiles, report: ImportReport): AsyncGenerator<ImportedImage> {
  const xmlFiles = files.names.filter((n) => n === 'file' || n.toLowerCase().endsWith('.xml'));
  if (!xmlFiles.length) throw new ImportFileError('no CVAT XML file was found (annotations.xml, videos/*.xml)');
  for (const name of xmlFiles) {
    // A video's tracks are one asset's objects, handed on once the file ends.
    let taskName = '';
    const objects: ImportedObject[] = [];
    for await (const el of xmlChildrenOfRoot(await files.stream(name), name)) {
      if (typeof el === 'string') {
        if (el !== 'annotations') throw new ImportFileError(`"${name}" is not CVAT XML (no <annotations>)`);
      } else if (el.name === 'image') {
        report.images++;
        yield imageOf(name, el, report);
      } else if (el.name === 'meta') {
        taskName = childrenOf(childrenOf(el, 'task')[0], 'name')[0]?.text.trim() ?? '';
      } else if (el.name === 'track') {
        const objectId = `track-${el.attributes.id ?? objects.length}`;
        const shapes = shapesOf(el, 0, 0, report, (s) => ({
          page: number(s.attributes.frame),
          stopped: s.attributes.outside === '1',
          objectId,
        }));
        for (const s of shapes) objects.push({ ...s, category: s.category || (el.attributes.label ?? '') });
        if (objects.length > IMPORT_LIMITS.objectsPerImage) throw tooManyObjectsIn(name);
      }
    }
    if (!objects.length) continue;
    report.images++;
    yield { source: name, externalId: taskName, objects, classifications: {} };
  }
}
