/**
 * The two costly steps of saving a 512 x 512 x 300 voxel layer (78.6 M voxels, one stroke of
 * 120 voxels on slice 150), each against the way it was done before, alternated in one run:
 *
 *   made     in Chromium: the gzip `.seg.nrrd` body compressed from the voxels a slice at a
 *            time (VoxelLayer.toBlob), against a Blob of all the voxels read back as a stream
 *   checked  on the server: the upload's gzip data counted as it unpacks, never held
 *            (gunzippedLength), against gunzipSync of all of it
 *
 * Both give the same bytes; the figures are wall times (the page's and this process's), and the
 * server's CPU time. `--rounds N` (default 5).
 *
 *   npm run bench -- voxel-layer-save [--rounds 5]
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { gunzippedLength } from '../src/services/files/layers/medical-layer.js';
import { launchBrowser } from '../test/browser/helpers/browser.js';
import { median } from './lib/chromium.js';
import { ms } from './lib/format.js';
import { wholeNumber } from './lib/labelled-project.js';
import { defineBenchmark, type Result } from './lib/types.js';

const [X, Y, Z] = [512, 512, 300];

/** In the page: both ways of compressing the voxels, `rounds` times alternated; answers their times and sizes. */
const COMPRESS = `(async ([x, y, z, rounds]) => {
  const data = new Uint8Array(x * y * z);
  const at = 150 * x * y + 256 * x + 200;
  data.fill(1, at, at + 120);
  const zip = async (stream) => (await new Response(stream.pipeThrough(new CompressionStream('gzip'))).arrayBuffer()).byteLength;
  const slices = () => {
    let k = 0;
    return new ReadableStream({ pull(out) { if (k >= z) return out.close(); out.enqueue(data.subarray(k * x * y, (k + 1) * x * y)); k += 1; } });
  };
  const out = { slices: [], blob: [], bytes: [] };
  for (let r = 0; r < rounds; r++) {
    let t = performance.now();
    const a = await zip(slices());
    out.slices.push(performance.now() - t);
    t = performance.now();
    const b = await zip(new Blob([data]).stream());
    out.blob.push(performance.now() - t);
    out.bytes.push(a, b);
  }
  return out;
})`;

function cpuMs(f: () => unknown): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  return Promise.resolve(f()).then(() => {
    const used = process.cpuUsage(cpu);
    return { wall: performance.now() - t, cpu: (used.user + used.system) / 1000 };
  });
}

export default defineBenchmark({
  name: 'voxel-layer-save',
  description:
    'a 512x512x300 voxel layer: its .seg.nrrd compressed a slice at a time in Chromium, and counted as it unpacks on the server, each against the earlier way',
  async run(opts): Promise<Result> {
    const rounds = wholeNumber(opts.extra.rounds, 5, 'rounds');
    const browser = await launchBrowser();
    let page: { slices: number[]; blob: number[]; bytes: number[] };
    try {
      const tab = await browser.newPage();
      page = (await tab.evaluate(`${COMPRESS}([${X}, ${Y}, ${Z}, ${rounds}])`)) as typeof page;
    } finally {
      await browser.close();
    }
    if (new Set(page.bytes).size !== 1) throw new Error(`the two ways made different files: ${page.bytes.join(', ')}`);

    const voxels = new Uint8Array(X * Y * Z);
    const at = 150 * X * Y + 256 * X + 200;
    voxels.fill(1, at, at + 120);
    const gz = gzipSync(voxels);
    const need = voxels.length;
    const counted: { wall: number; cpu: number }[] = [];
    const held: { wall: number; cpu: number }[] = [];
    for (let r = 0; r < rounds; r++) {
      counted.push(
        await cpuMs(async () => {
          if ((await gunzippedLength(gz, need)) !== need) throw new Error('the count is wrong');
        }),
      );
      held.push(
        await cpuMs(() => {
          if (gunzipSync(gz, { maxOutputLength: need + 1 }).length !== need) throw new Error('the length is wrong');
        }),
      );
    }
    const m = (list: { wall: number; cpu: number }[], k: 'wall' | 'cpu') => median(list.map((s) => s[k]));
    const rows = [
      ['made in Chromium: a slice at a time', ms(median(page.slices)), '', 'a Blob read back', ms(median(page.blob))],
      [
        'checked on the server: counted (wall / CPU)',
        `${ms(m(counted, 'wall'))} / ${ms(m(counted, 'cpu'))}`,
        '',
        'gunzipSync (wall / CPU)',
        `${ms(m(held, 'wall'))} / ${ms(m(held, 'cpu'))}`,
      ],
    ];
    return {
      table: { columns: ['step', 'now', '', 'before', ''], rows },
      summary:
        `made ${ms(median(page.slices))} (before ${ms(median(page.blob))}), ` +
        `checked ${ms(m(counted, 'wall'))} (before ${ms(m(held, 'wall'))})`,
      data: { rounds, page, counted, held, gzipBytes: gz.length },
      notes: [
        `${rounds} rounds each, alternated; medians. The .seg.nrrd body is ${page.bytes[0]} bytes of gzip.`,
        'Headless Chromium with --disable-gpu; the server side runs in this process.',
      ],
    };
  },
});
