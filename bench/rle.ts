/**
 * COCO run-length encoding of a 4000 x 3000 mask (the RLE of brush layers and of segmentation
 * zones with holes in the `coco` export), in this process. Baseline: one pass over the same
 * 12 M pixels counting the mask's pixels, the least any encoder must read. Masks: a filled
 * quadrilateral with a square hole (few runs per column) and a striped mask (a run boundary in
 * every column every 4 rows: many runs).
 *
 *   npm run bench -- rle [--rounds 20]
 */
import { countPixels, emptyRaster, encodeRle, fillRings, type Raster } from '../src/services/files/layers/raster.js';
import { wholeNumber } from './lib/labelled-project.js';
import { medianMs } from './lib/stats.js';
import { defineBenchmark, type Result } from './lib/types.js';

const W = 4000;
const H = 3000;

function shapes(): Raster {
  const r = emptyRaster(W, H);
  fillRings(
    r,
    [
      [
        [100, 100],
        [3900, 200],
        [3500, 2900],
        [200, 2500],
      ],
      [
        [1000, 1000],
        [2000, 1000],
        [2000, 2000],
        [1000, 2000],
      ],
    ],
    1,
  );
  return r;
}

function stripes(): Raster {
  const r = emptyRaster(W, H);
  for (let y = 0; y < H; y++) if (y % 4 < 2) r.data.fill(1, y * W, (y + 1) * W);
  return r;
}

export default defineBenchmark({
  name: 'rle',
  description: 'COCO RLE encoding of a 4000 x 3000 mask against one counting pass over its pixels',
  async run(opts): Promise<Result> {
    const rounds = wholeNumber(opts.extra.rounds, 20, 'rounds');
    const rows: (string | number)[][] = [];
    const data: Record<string, unknown> = {};
    for (const [name, raster] of [
      ['quadrilateral with a hole', shapes()],
      ['stripes', stripes()],
    ] as const) {
      // Warm both up so the JIT has compiled them before the measured rounds.
      medianMs(() => encodeRle(raster), 3);
      medianMs(() => countPixels(raster), 3);
      const encode = medianMs(() => encodeRle(raster), rounds);
      const count = medianMs(() => countPixels(raster), rounds);
      const runs = encodeRle(raster).counts.length;
      rows.push([name, runs, count.toFixed(1), encode.toFixed(1), (encode / count).toFixed(2)]);
      data[name] = { runs, countMs: count, encodeMs: encode };
    }
    const worst = Math.max(...Object.values(data).map((d) => (d as { encodeMs: number }).encodeMs));
    return {
      table: { columns: ['mask', 'runs', 'count pass ms (baseline)', 'encode ms', 'x baseline'], rows },
      summary: `RLE of a 4000 x 3000 mask: ${worst.toFixed(1)} ms at most (median of ${rounds} rounds)`,
      data,
    };
  },
});
