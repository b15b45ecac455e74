import { ImportFileError, type ImportedImage, type ImportedObject, type ImportedShape } from './imported-labels.js';
import type { ImportFiles } from './import-files.js';
import type { ImportReport } from './import-report.js';
import { jsonArrayItems } from './json-items.js';
import { decodeLabelStudioRle } from './labelstudio-rle.js';

/*
 * A Label Studio JSON export: a list of tasks, each with `data` (the file's URL) and
 * `annotations[].result[]`. Percent coordinates are turned into pixels with `original_width`
 * and `original_height`; rectangles rotate about their top-left corner in Label Studio (about
 * the centre here). Results: rectanglelabels, polygonlabels, keypointlabels, brushlabels (its
 * RLE), labels (NER spans), choices and textarea (answers, by the control's name).
 */

type Json = Record<string, unknown>;
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Label Studio prefixes uploaded files with 8 hex characters and a dash. */
const fileNameOf = (url: string) => (url.split(/[?#]/)[0]?.split('/').pop() ?? '').replace(/^[0-9a-f]{8}-/, '');

function shapeOf(type: string, v: Json, w: number, h: number): ImportedShape | undefined {
  const px = (x: number) => (x / 100) * w;
  const py = (y: number) => (y / 100) * h;
  if (type === 'rectanglelabels' && [v.x, v.y, v.width, v.height].every(num)) {
    const [x, y, width, height] = [px(v.x as number), py(v.y as number), px(v.width as number), py(v.height as number)];
    const rotation = num(v.rotation) ? v.rotation : 0;
    if (!rotation) return { kind: 'bounding-box', box: { x, y, width, height } };
    // The centre, turned about the top-left corner by the rotation.
    const rad = (rotation * Math.PI) / 180;
    const cx = x + (width / 2) * Math.cos(rad) - (height / 2) * Math.sin(rad);
    const cy = y + (width / 2) * Math.sin(rad) + (height / 2) * Math.cos(rad);
    return { kind: 'rotated-bounding-box', box: { x: cx - width / 2, y: cy - height / 2, width, height, rotation } };
  }
  if (type === 'polygonlabels' && Array.isArray(v.points)) {
    const points = (v.points as unknown[]).filter(
      (p): p is [number, number] => Array.isArray(p) && num(p[0]) && num(p[1]),
    );
    return points.length >= 3 ? { kind: 'polygon', points: points.map(([x, y]) => [px(x), py(y)]) } : undefined;
  }
  if (type === 'keypointlabels' && num(v.x) && num(v.y)) return { kind: 'point', point: [px(v.x), py(v.y)] };
  if (type === 'labels' && num(v.start) && num(v.end)) return { kind: 'ner', start: v.start, end: v.end };
  if (type === 'brushlabels' && Array.isArray(v.rle) && w && h) {
    const pixels = decodeLabelStudioRle(v.rle as number[], w, h);
    return pixels ? { kind: 'mask', width: w, height: h, pixels } : undefined;
  }
  return undefined;
}

/** The tasks of the export as they are parsed; anything but a top-level list is refused. */
async function* labelStudioTasks(files: ImportFiles, name: string): AsyncGenerator<unknown> {
  try {
    yield* jsonArrayItems(files, name);
  } catch (err) {
    if (err instanceof ImportFileError && /should be an array/.test(err.message)) {
      throw new ImportFileError('a Label Studio export is a JSON list of tasks');
    }
    throw err;
  }
}

export async function* labelStudioImages(files: ImportFiles, report: ImportReport): AsyncGenerator<ImportedImage> {
  const name = files.names.find((n) => n === 'file' || n.toLowerCase().endsWith('.json'));
  if (!name) throw new ImportFileError('no Label Studio JSON export was found');
  let i = -1;
  for await (const item of labelStudioTasks(files, name)) {
    const task = item as Json | null;
    i++;
    report.images++;
    const data = (task?.data ?? {}) as Json;
    const url = Object.values(data).find((v): v is string => typeof v === 'string') ?? '';
    const annotations = ((task?.annotations ?? []) as Json[]).filter((a) => !a.was_cancelled);
    const result = ((annotations[annotations.length - 1]?.result ?? []) as Json[]).filter(
      (r) => r && typeof r === 'object',
    );
    const image: ImportedImage = {
      source: `task ${String(task?.id ?? i)}`,
      fileName: fileNameOf(url),
      objects: [],
      classifications: {},
    };
    for (const r of result) {
      const type = String(r.type);
      const v = (r.value ?? {}) as Json;
      const w = num(r.original_width) ? r.original_width : 0;
      const h = num(r.original_height) ? r.original_height : 0;
      if (w && h) [image.width, image.height] = [w, h];
      if (type === 'choices' || type === 'textarea') {
        image.classifications[String(r.from_name)] =
          type === 'choices' ? v.choices : (v.text as unknown[] | undefined)?.join('\n');
        continue;
      }
      const labels = v[type];
      const shape = shapeOf(type, v, w, h);
      if (!shape || !Array.isArray(labels) || !labels.length) {
        report.skip(`Label Studio ${type} results that cannot be read`);
        continue;
      }
      const o: ImportedObject = {
        category: String(labels[0]),
        shape,
        objectId: typeof r.id === 'string' ? r.id : undefined,
        attributes: {},
      };
      image.objects.push(o);
    }
    yield image;
  }
}
