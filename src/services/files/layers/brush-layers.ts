import type { AppContext } from '../../../context.js';
import { fileStoreOf, parseFileUrl } from '../file-url.js';
import type { CategorySchema } from '../../../schemas/category-schema.js';
import { type DatasetClass, type DatasetOntology, datasetOntology } from './ontology-classes.js';
import { decodePng, rgbOf } from './png.js';
import { emptyRaster, type Raster } from './raster.js';

/*
 * The brush layer of a task (DECISIONS 10): one PNG the image's size, transparent background,
 * each brush class painted in its ontology colour. Read back as a raster of class numbers
 * (brush class index + 1, 0 = unpainted). Only layers in this server's file store are read: a
 * link elsewhere is not fetched (the export would otherwise reach any address a task names).
 */

/** Past this, a layer is not read (a 8000 x 8000 RGBA PNG compresses far below it). */
const MAX_LAYER_BYTES = 64 * 1024 * 1024;
/** Colour distance (per channel) still read as a class: anti-aliased edges blend a little. */
const TOLERANCE = 24;

export interface BrushLayer {
  raster: Raster;
  /** raster value v is classes[v - 1]. */
  classes: DatasetClass[];
}

export type BrushOutcome = { layer: BrushLayer } | { skipped: string } | undefined;

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

export async function readBrushLayer(
  ctx: AppContext,
  ontology: DatasetOntology,
  url: string | null,
): Promise<BrushOutcome> {
  if (!url) return undefined;
  const classes = ontology.classes.filter((c) => c.tool === 'brush');
  if (!classes.length) return { skipped: 'brush layers of a project with no brush tool' };
  const link = parseFileUrl(ctx, url);
  if (!link) return { skipped: "brush layers outside this server's file store (not fetched)" };
  const store = fileStoreOf(ctx);
  const info = await store.stat(link.key);
  if (!info) return { skipped: 'brush layers whose file is gone' };
  if (info.size > MAX_LAYER_BYTES) return { skipped: 'brush layers over 64 MiB' };
  let png;
  try {
    png = decodePng(await readAll(await store.openRead(link.key)));
  } catch {
    return { skipped: 'brush layers that are not readable PNG files' };
  }
  return { layer: { raster: classRaster(png, classes), classes } };
}

/** A decoded layer as a raster of class numbers: brush class index + 1 by nearest colour, 0 unpainted. */
export function classRaster(
  png: { width: number; height: number; data: Uint8Array },
  classes: readonly DatasetClass[],
): Raster {
  const colours = classes.map((c) => rgbOf(c.color));
  const raster = emptyRaster(png.width, png.height);
  const { data } = png;
  for (let p = 0, i = 0; p < raster.data.length; p++, i += 4) {
    if ((data[i + 3] as number) < 128) continue;
    const r = data[i] as number;
    const g = data[i + 1] as number;
    const b = data[i + 2] as number;
    let best = 0;
    let bestDistance = TOLERANCE + 1;
    colours.forEach(([cr, cg, cb], k) => {
      const d = Math.max(Math.abs(cr - r), Math.abs(cg - g), Math.abs(cb - b));
      if (d < bestDistance) {
        bestDistance = d;
        best = k + 1;
      }
    });
    raster.data[p] = best;
  }
  return raster;
}

/**
 * Reads tasks' brush layers for consensus agreement: class numbers by the ontology's brush tools
 * in order. A layer that cannot be read (none, gone, elsewhere, not a PNG) paints nothing.
 */
export function brushReader(ctx: AppContext, schema: CategorySchema) {
  const ontology = datasetOntology(schema);
  return async (url: string | null): Promise<Raster | undefined> => {
    const outcome = await readBrushLayer(ctx, ontology, url);
    return outcome && 'layer' in outcome ? outcome.layer.raster : undefined;
  };
}
