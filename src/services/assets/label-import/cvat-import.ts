import { ImportFileError, type ImportedImage, type ImportedObject, type ImportedShape } from './imported-labels.js';
import { type ImportFiles, readText } from './import-files.js';
import type { ImportReport } from './import-report.js';
import { parseXml, unescapeXml } from './xml-reader.js';

/*
 * CVAT 1.1 XML: `annotations.xml` (CVAT for images: `image` elements with box, polygon,
 * polyline, points, mask and tag) and CVAT for video files (`track` elements, a shape per
 * frame, `outside` from where the object is gone), matched to the video by the task name.
 */

type Json = Record<string, unknown>;

const text = (v: unknown) => String(unescapeXml(v) ?? '');
const number = (v: unknown) => Number(text(v));

function points(v: unknown): [number, number][] | undefined {
  const out = text(v)
    .split(';')
    .map((p) => p.split(',').map(Number) as [number, number]);
  return out.every((p) => p.length === 2 && p.every(Number.isFinite)) ? out : undefined;
}

function attributesOf(el: Json): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of (el.attribute ?? []) as Json[]) out[text(a['@name'])] = text(a['#text'] ?? '');
  return out;
}

function maskShape(el: Json, width: number, height: number): ImportedShape | undefined {
  const counts = text(el['@rle']).split(',').map(Number);
  const [left, top, w, h] = ['@left', '@top', '@width', '@height'].map((k) => number(el[k])) as number[];
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

function shapeOf(tag: string, el: Json, width: number, height: number): ImportedShape | undefined {
  if (tag === 'box') {
    const [x1, y1, x2, y2] = ['@xtl', '@ytl', '@xbr', '@ybr'].map((k) => number(el[k])) as number[];
    if (![x1, y1, x2, y2].every(Number.isFinite)) return undefined;
    const box = {
      x: x1 as number,
      y: y1 as number,
      width: (x2 as number) - (x1 as number),
      height: (y2 as number) - (y1 as number),
    };
    const rotation = number(el['@rotation']);
    return rotation ? { kind: 'rotated-bounding-box', box: { ...box, rotation } } : { kind: 'bounding-box', box };
  }
  if (tag === 'mask') return maskShape(el, width, height);
  const p = points(el['@points']);
  if (!p) return undefined;
  if (tag === 'points') return p[0] ? { kind: 'point', point: p[0] } : undefined;
  return tag === 'polyline' ? { kind: 'polyline', points: p } : { kind: 'polygon', points: p };
}

const SHAPES = ['box', 'polygon', 'polyline', 'points', 'mask'];

function shapesOf(
  el: Json,
  width: number,
  height: number,
  report: ImportReport,
  extra: (s: Json) => Partial<ImportedObject>,
) {
  const out: ImportedObject[] = [];
  for (const tag of SHAPES) {
    for (const s of (el[tag] ?? []) as Json[]) {
      const shape = shapeOf(tag, s, width, height);
      if (!shape) report.skip(`CVAT ${tag} elements that cannot be read`);
      else out.push({ category: text(s['@label']), shape, attributes: attributesOf(s), ...extra(s) });
    }
  }
  return out;
}

export async function* cvatImages(files: ImportFiles, report: ImportReport): AsyncGenerator<ImportedImage> {
  const xmlFiles = files.names.filter((n) => n === 'file' || n.toLowerCase().endsWith('.xml'));
  if (!xmlFiles.length) throw new ImportFileError('no CVAT XML file was found (annotations.xml, videos/*.xml)');
  for (const name of xmlFiles) {
    const doc = parseXml(await readText(files, name), name).annotations as Json | undefined;
    if (!doc) throw new ImportFileError(`"${name}" is not CVAT XML (no <annotations>)`);
    for (const im of (doc.image ?? []) as Json[]) {
      report.images++;
      const width = number(im['@width']);
      const height = number(im['@height']);
      const classifications: Record<string, unknown> = {};
      for (const tag of (im.tag ?? []) as Json[]) Object.assign(classifications, attributesOf(tag));
      yield {
        source: `${name}: ${text(im['@name'])}`,
        fileName: text(im['@name']).split('/').pop(),
        width: width || undefined,
        height: height || undefined,
        objects: shapesOf(im, width, height, report, () => ({})),
        classifications,
      };
    }
    const tracks = (doc.track ?? []) as Json[];
    if (!tracks.length) continue;
    const task = ((doc.meta as Json | undefined)?.task ?? {}) as Json;
    report.images++;
    const objects: ImportedObject[] = [];
    tracks.forEach((track, i) => {
      const label = text(track['@label']);
      const objectId = `track-${text(track['@id'] ?? i)}`;
      const shapes = shapesOf(track, 0, 0, report, (s) => ({
        page: number(s['@frame']),
        stopped: text(s['@outside']) === '1',
        objectId,
      }));
      for (const s of shapes) objects.push({ ...s, category: s.category || label });
    });
    yield { source: name, externalId: text(task.name), objects, classifications: {} };
  }
}
