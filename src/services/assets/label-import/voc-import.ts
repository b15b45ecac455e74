import { ImportFileError, type ImportedImage, type ImportedShape } from './imported-labels.js';
import { type ImportFiles, readText } from './import-files.js';
import type { ImportReport } from './import-report.js';
import { parseXml, unescapeXml } from './xml-reader.js';

/*
 * Pascal VOC: one XML per image (`Annotations/*.xml` in a zip, or a single XML file). Objects
 * are boxes; a box with `rotation`, `box_width` and `box_height` attributes (Annotary's own
 * export) is the rotated box around the same centre. Other attributes become answers.
 */

type Json = Record<string, unknown>;

const text = (v: unknown) => String(unescapeXml(v) ?? '');
const number = (v: unknown) => Number(text(v));

function attributesOf(node: Json | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const list = ((node?.attributes as Json | undefined)?.attribute ?? []) as Json[];
  for (const a of list) out[text(a.name)] = text(a.value);
  return out;
}

function shapeOf(o: Json, attributes: Record<string, unknown>): ImportedShape | undefined {
  const b = o.bndbox as Json | undefined;
  const [x1, y1, x2, y2] = ['xmin', 'ymin', 'xmax', 'ymax'].map((k) => number(b?.[k]));
  if (
    ![x1, y1, x2, y2].every(Number.isFinite) ||
    (x2 as number) <= (x1 as number) ||
    (y2 as number) <= (y1 as number)
  ) {
    return undefined;
  }
  const box = {
    x: x1 as number,
    y: y1 as number,
    width: (x2 as number) - (x1 as number),
    height: (y2 as number) - (y1 as number),
  };
  const [rotation, width, height] = ['rotation', 'box_width', 'box_height'].map((k) => Number(attributes[k]));
  if ([rotation, width, height].every(Number.isFinite)) {
    for (const k of ['rotation', 'box_width', 'box_height']) delete attributes[k];
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    const w = width as number;
    const h = height as number;
    return {
      kind: 'rotated-bounding-box',
      box: { x: cx - w / 2, y: cy - h / 2, width: w, height: h, rotation: rotation as number },
    };
  }
  return { kind: 'bounding-box', box };
}

export async function* vocImages(files: ImportFiles, report: ImportReport): AsyncGenerator<ImportedImage> {
  const xmlFiles = files.names.filter(
    (n) => n === 'file' || (n.toLowerCase().endsWith('.xml') && !/(^|\/)(videos\/|annotations\.xml$)/.test(n)),
  );
  if (!xmlFiles.length)
    throw new ImportFileError('no VOC XML file was found (Annotations/*.xml in a zip, or one XML file)');
  for (const name of xmlFiles) {
    const doc = parseXml(await readText(files, name), name).annotation as Json | undefined;
    if (!doc) throw new ImportFileError(`"${name}" is not a Pascal VOC annotation (no <annotation>)`);
    report.images++;
    const size = doc.size as Json | undefined;
    const image: ImportedImage = {
      source: name,
      fileName: text(doc.filename) || (name.split('/').pop() ?? '').replace(/\.xml$/i, ''),
      width: number(size?.width) || undefined,
      height: number(size?.height) || undefined,
      objects: [],
      classifications: attributesOf(doc),
    };
    for (const o of (doc.object ?? []) as Json[]) {
      const attributes = attributesOf(o);
      const shape = shapeOf(o, attributes);
      if (!shape) {
        report.skip('VOC objects without a valid bndbox');
        continue;
      }
      image.objects.push({ category: text(o.name), shape, attributes });
    }
    yield image;
  }
}
