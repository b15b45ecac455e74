/**
 * What exporting masks costs per 4000 x 3000 image, in this process, median of `--rounds`:
 *
 * - a brush layer (three classes painted as large shapes, one with a hole) read as the `coco`
 *   export reads it: PNG decode, each pixel to its class by colour, then COCO RLE per class;
 * - one `includeMask` link read: a segmentation object with a hole drawn alone and encoded as
 *   the PNG GET /v2/mask answers.
 *
 * Baseline in the same run: decoding the same brush layer PNG with pngjs, the least any reader of
 * a brush layer does.
 *
 *   npm run bench -- mask-export [--rounds 10]
 */
import { PNG } from 'pngjs';
import { classRaster } from '../src/services/files/layers/brush-layers.js';
import type { DatasetClass } from '../src/services/files/layers/ontology-classes.js';
import { decodePng } from '../src/services/files/layers/png.js';
import { encodeRle } from '../src/services/files/layers/raster.js';
import { maskPng, type Ring } from '../src/services/tasks/object-mask.js';
import { wholeNumber } from './lib/labelled-project.js';
import { medianMs } from './lib/stats.js';
import { defineBenchmark, type Result } from './lib/types.js';

const W = 4000;
const H = 3000;

const CLASSES: DatasetClass[] = [
  { index: 0, schemaId: 'grass', name: 'Grass', tool: 'brush', color: '#00ff00' },
  { index: 1, schemaId: 'road', name: 'Road', tool: 'brush', color: '#808080' },
  { index: 2, schemaId: 'sky', name: 'Sky', tool: 'brush', color: '#3366ff' },
];

const RING: Ring = [
  [100, 100],
  [3900, 200],
  [3500, 2900],
  [200, 2500],
];
const HOLE: Ring = [
  [1000, 1000],
  [2000, 1000],
  [2000, 2000],
  [1000, 2000],
];

/** Sky over the top third, a road band, grass below with a disc left unpainted. */
function brushLayer(): Buffer {
  const png = new PNG({ width: W, height: H });
  const paint = (x0: number, y0: number, x1: number, y1: number, rgb: number[]) => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) png.data.set([...rgb, 255], (y * W + x) * 4);
  };
  paint(0, 0, W, 1000, [0x33, 0x66, 0xff]);
  paint(0, 1400, W, 1800, [0x80, 0x80, 0x80]);
  paint(0, 1800, W, H, [0, 255, 0]);
  for (let y = 2100; y < 2700; y++) {
    for (let x = 1700; x < 2300; x++)
      if ((x - 2000) ** 2 + (y - 2400) ** 2 < 300 ** 2) png.data.fill(0, (y * W + x) * 4, (y * W + x) * 4 + 4);
  }
  return PNG.sync.write(png);
}

export default defineBenchmark({
  name: 'mask-export',
  description: 'a 4000 x 3000 brush layer to COCO RLE per class, and one includeMask PNG, against a PNG decode',
  async run(opts): Promise<Result> {
    const rounds = wholeNumber(opts.extra.rounds, 10, 'rounds');
    const layer = brushLayer();
    const brushToRle = () => {
      const raster = classRaster(decodePng(layer), CLASSES);
      return CLASSES.map((_, k) => encodeRle(raster, k + 1).counts.length);
    };
    const objectMask = () => maskPng([RING, HOLE], { width: W, height: H }).length;
    // Warm up so the JIT has compiled each before the measured rounds.
    for (const f of [() => decodePng(layer), brushToRle, objectMask]) medianMs(f, 2);
    const decode = medianMs(() => decodePng(layer), rounds);
    const brush = medianMs(brushToRle, rounds);
    const mask = medianMs(objectMask, rounds);
    const rows = [
      ['decode the brush layer PNG (baseline)', decode.toFixed(1), '1.00', (1000 / decode).toFixed(1)],
      ['brush layer to COCO RLE, 3 classes', brush.toFixed(1), (brush / decode).toFixed(2), (1000 / brush).toFixed(1)],
      ['one includeMask PNG (GET /v2/mask)', mask.toFixed(1), (mask / decode).toFixed(2), (1000 / mask).toFixed(1)],
    ];
    return {
      table: { columns: ['work per 4000 x 3000 image', 'ms (median)', 'x baseline', 'images/s'], rows },
      summary:
        `brush layer to RLE ${brush.toFixed(0)} ms, mask PNG ${mask.toFixed(0)} ms, ` +
        `PNG decode ${decode.toFixed(0)} ms (median of ${rounds})`,
      data: { layerBytes: layer.length, decodeMs: decode, brushToRleMs: brush, maskPngMs: mask, rounds },
    };
  },
});
