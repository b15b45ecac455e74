import { createInterface } from 'node:readline';
import { parse } from 'yaml';
import { ImportFileError, type ImportedImage, type ImportedShape } from './imported-labels.js';
import { type ImportFiles, readText } from './import-files.js';
import { IMPORT_LIMITS, tooManyObjectsIn } from './import-limits.js';
import type { ImportReport } from './import-report.js';

/*
 * A YOLO dataset zip: `data.yaml` (class names as a list or a map), `labels/<image>.txt` one
 * object a line. Five numbers are a box (cx cy w h); nine an oriented box's corners; more a
 * polygon, or a zone with holes when holes are cut into it. Coordinates are normalised: the service scales them by the asset's size. Images are
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
  const rings = cutApart(points);
  if (rings.length < 2) return { kind: 'polygon', points: rings[0] ?? points };
  const [region, ...holes] = rings as [[number, number][], ...[number, number][][]];
  return { kind: 'segmentation', zones: [{ region, holes }] };
}

/**
 * A line with holes cut into it (the outline, a cut to the hole, round it, back on the same
 * cut; our export and Ultralytics write them so) as its outline and its holes: walking the
 * vertices, one met again closes the loop since its first visit; a loop of three or more is a
 * hole, a shorter one the cut itself. Without repeated vertices: the line as it is.
 */
function cutApart(points: [number, number][]): [number, number][][] {
  const stack: [number, number][] = [];
  const at = new Map<string, number>();
  const holes: [number, number][][] = [];
  for (const p of points) {
    const key = `${p[0]},${p[1]}`;
    const seen = at.get(key);
    if (seen === undefined) {
      at.set(key, stack.length);
      stack.push(p);
      continue;
    }
    const loop = stack.splice(seen + 1);
    for (const q of loop) at.delete(`${q[0]},${q[1]}`);
    if (loop.length >= 2) holes.push([stack[seen] as [number, number], ...loop]);
  }
  if (stack.length >= 3) return [stack, ...holes];
  // A ring closed by repeating its first vertex at the end.
  return holes.length === 1 ? holes : [points];
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
