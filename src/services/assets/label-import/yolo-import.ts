import { createInterface } from 'node:readline';
import { parse } from 'yaml';
import { ImportFileError, type ImportedImage, type ImportedShape } from './imported-labels.js';
import { type ImportFiles, readText } from './import-files.js';
import { IMPORT_LIMITS, tooManyObjectsIn } from './import-limits.js';
import type { ImportReport } from './import-report.js';

/*
 * A YOLO dataset zip: `data.yaml` (class names as a list or a map), `labels/<image>.txt` one
 * object a line. Five numbers are a box (cx cy w h); nine an oriented box's corners; more a
 * polygon. Coordinates are normalised: the service scales them by the asset's size. Images are
 * found by their name without extension.
 */

function classNames(yamlText: string): Map<number, string> {
  let data: unknown;
  try {
    data = parse(yamlText, { maxAliasCount: 100 });
  } catch {
    throw new ImportFileError('data.yaml is not valid YAML', 'data.yaml');
  }
  const names = (data as { names?: unknown } | null)?.names;
  const out = new Map<number, string>();
  if (Array.isArray(names)) names.forEach((n, i) => out.set(i, String(n)));
  else if (names && typeof names === 'object') {
    for (const [k, v] of Object.entries(names)) if (/^\d+$/.test(k)) out.set(Number(k), String(v));
  }
  if (!out.size) throw new ImportFileError('data.yaml names no classes (`names:`)', 'data.yaml');
  return out;
}

function lineShape(values: number[]): ImportedShape | undefined {
  if (values.length === 4) {
    const [cx, cy, w, h] = values as [number, number, number, number];
    return { kind: 'bounding-box', box: { x: cx - w / 2, y: cy - h / 2, width: w, height: h } };
  }
  if (values.length < 6 || values.length % 2) return undefined;
  const points: [number, number][] = [];
  for (let i = 0; i < values.length; i += 2) points.push([values[i] as number, values[i + 1] as number]);
  return { kind: 'polygon', points };
}

export async function* yoloImages(files: ImportFiles, report: ImportReport): AsyncGenerator<ImportedImage> {
  const yamlName = files.names.find((n) => /(^|\/)data\.ya?ml$/.test(n));
  if (!yamlName) throw new ImportFileError('a YOLO import is a zip holding data.yaml and labels/*.txt');
  const names = classNames(await readText(files, yamlName));
  const labels = files.names.filter((n) => /(^|\/)labels\/.+\.txt$/.test(n));
  if (!labels.length) throw new ImportFileError('the zip holds no labels/*.txt files');
  for (const name of labels) {
    report.images++;
    const stem = (name.split('/').pop() ?? name).replace(/\.txt$/, '');
    const image: ImportedImage = { source: name, fileName: stem, objects: [], classifications: {}, normalised: true };
    let i = 0;
    const input = await files.stream(name);
    try {
      for await (const line of createInterface({ input, crlfDelay: Infinity })) {
        i++;
        const parts = line.trim().split(/\s+/).filter(Boolean);
        if (!parts.length) continue;
        const values = parts.map(Number);
        const shape = values.every(Number.isFinite) ? lineShape(values.slice(1)) : undefined;
        const cls = names.get(values[0] as number);
        if (!shape || cls === undefined) {
          report.skipImage(
            `${name}:${i}`,
            cls === undefined ? `class ${parts[0]} is not in data.yaml` : 'not a YOLO label line',
          );
          continue;
        }
        if (values.slice(1).some((v) => v < -0.01 || v > 1.01)) report.clipped++;
        // Refused as soon as it is known, without reading the rest of a file of millions of lines.
        if (image.objects.push({ category: cls, shape, attributes: {} }) > IMPORT_LIMITS.objectsPerImage) {
          throw tooManyObjectsIn(name);
        }
      }
    } finally {
      input.destroy();
    }
    yield image;
  }
}
