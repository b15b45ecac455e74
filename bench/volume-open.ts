/**
 * The volume editor in Chromium on a 512 x 512 x 300 CT series (300 DICOM files of signed 16-bit
 * samples, 150 MiB), made here by pydicom (Debian's python3-pydicom with numpy) and served from
 * 127.0.0.1. Measured against the goals:
 *
 *   first slice   navigation start to the middle slice drawn (all 300 files read)     <= 3 s
 *                 split into: before the first file is asked for, the files read (first
 *                 request to last response, Resource Timing), and the last file in to the
 *                 slice drawn (parsing, joining, drawing)
 *   scroll        requestAnimationFrame deltas while the wheel turns slices, p95     <= 33 ms
 *   slice step    a wheel notch to its slice drawn, p95                              (no goal)
 *   save          Submit with a stroke on the voxel layer (78.6 M voxels) to the
 *                 answer stored: the .seg.nrrd made, uploaded, checked and linked      <= 500 ms
 *                 split into: Submit to the upload asked (the file made), the upload (the
 *                 server's check and store), and the rest (the answer sent and stored)
 *   memory        the page's ArrayBuffer memory with the volume open (CDP
 *                 Runtime.getHeapUsage backingStorageSize), and its JS heap          (reported)
 *
 * The series is cached in $TMPDIR/annotary-bench-volume; the time to make it is printed. The
 * first open reads the files from the network (loopback), later ones from the browser's cache;
 * both are reported. `--rounds N` opens (default 3), `--notches N` wheel notches (default 60).
 *
 *   npm run bench -- volume-open [--rounds 3] [--notches 60] [--skip-build]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../test/browser/helpers/browser.js';
import { serveAssets } from '../test/browser/helpers/editor-assets.js';
import { startAnnotary } from './lib/annotary.js';
import { buildConsole, median, signedInContext, START_FRAMES, STOP_FRAMES } from './lib/chromium.js';
import { mib, ms, num } from './lib/format.js';
import { wholeNumber } from './lib/labelled-project.js';
import { percentiles } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const SIZE = 512;
const SLICES = 300;
const CACHE = path.join(os.tmpdir(), 'annotary-bench-volume');
const DONE = path.join(CACHE, `ct-${SIZE}x${SIZE}x${SLICES}.done`);

/** A chest-like phantom: a body, two lungs whose size changes along the series, a spine, noise. */
const MAKE_SERIES = `
import sys, numpy as np
from pydicom.dataset import FileDataset, FileMetaDataset
from pydicom.uid import ExplicitVRLittleEndian, generate_uid
out, size, slices = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
series, study = generate_uid(), generate_uid()
y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
rng = np.random.default_rng(7)
for k in range(slices):
    t = k / max(1, slices - 1)
    hu = np.full((size, size), -1000, np.float32)
    hu[(x / 0.45) ** 2 + (y / 0.35) ** 2 <= 1] = 40
    r = 0.08 + 0.1 * np.sin(np.pi * t)
    for cx in (-0.18, 0.18):
        hu[((x - cx) / r) ** 2 + ((y + 0.02) / (1.5 * r)) ** 2 <= 1] = -800
    hu[(x ** 2 + (y - 0.22) ** 2) <= 0.04 ** 2] = 700
    hu += rng.normal(0, 12, hu.shape).astype(np.float32)
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.2'
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = FileDataset(None, {}, file_meta=meta, preamble=b'\\0' * 128)
    ds.is_little_endian, ds.is_implicit_VR = True, False
    ds.Modality = 'CT'
    ds.StudyInstanceUID, ds.SeriesInstanceUID = study, series
    ds.SOPClassUID, ds.SOPInstanceUID = meta.MediaStorageSOPClassUID, meta.MediaStorageSOPInstanceUID
    ds.InstanceNumber = k + 1
    ds.ImagePositionPatient = [0, 0, k * 1.25]
    ds.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
    ds.PixelSpacing = [0.7, 0.7]
    ds.SliceThickness = 1.25
    ds.Rows, ds.Columns = size, size
    ds.SamplesPerPixel = 1
    ds.PhotometricInterpretation = 'MONOCHROME2'
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 16, 15, 1
    ds.RescaleSlope, ds.RescaleIntercept = 1, -1024
    ds.WindowCenter, ds.WindowWidth = 40, 400
    ds.PixelData = np.clip(hu + 1024, -32768, 32767).astype('<i2').tobytes()
    ds.save_as(f'{out}/slice-{k:04d}.dcm', write_like_original=False)
`;

/** The series' files, made once: answers their names and the seconds it took (0 when cached). */
function makeSeries(): { names: string[]; seconds: number } {
  const list = () =>
    fs
      .readdirSync(CACHE)
      .filter((n) => n.endsWith('.dcm'))
      .sort();
  if (fs.existsSync(DONE)) return { names: list(), seconds: 0 };
  fs.rmSync(CACHE, { recursive: true, force: true });
  fs.mkdirSync(CACHE, { recursive: true });
  const started = Date.now();
  execFileSync('/usr/bin/python3', ['-c', MAKE_SERIES, CACHE, String(SIZE), String(SLICES)]);
  fs.writeFileSync(DONE, '');
  return { names: list(), seconds: (Date.now() - started) / 1000 };
}

/** performance.now() once the middle slice is drawn (the canvas ready on it), else false. */
const MIDDLE_SHOWN = `(() => {
  const out = document.querySelector('output[aria-label="Slice shown"]');
  const canvas = document.querySelector('[data-testid="editor-canvas"]');
  return out?.dataset.slice === '${SLICES / 2}' && canvas?.dataset.ready === 'true' ? performance.now() : false;
})()`;

/** In the page: the series' files read (first request's start, last response's end), from Resource Timing. */
const FILES_READ = `(() => {
  const files = performance.getEntriesByType('resource').filter((e) => e.name.includes('/ct/'));
  return files.length
    ? [files.length, Math.min(...files.map((e) => e.startTime)), Math.max(...files.map((e) => e.responseEnd))]
    : [0, NaN, NaN];
})()`;

/** In the page: each slice drawn ("Slice shown" changing) with its time, and the last wheel's time. */
const WATCH = `(() => {
  const out = document.querySelector('output[aria-label="Slice shown"]');
  window.shown_ = [];
  window.wheel_ = 0;
  new MutationObserver(() => window.shown_.push([Number(out.dataset.slice), performance.now()]))
    .observe(out, { attributes: true, attributeFilter: ['data-slice'] });
  addEventListener('wheel', () => { window.wheel_ = performance.now(); }, { capture: true, passive: true });
})()`;

interface HeapUsage {
  usedSize: number;
  backingStorageSize?: number;
}

async function heapUsage(page: Page): Promise<HeapUsage> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    return (await cdp.send('Runtime.getHeapUsage')) as HeapUsage;
  } finally {
    await cdp.detach();
  }
}

export default defineBenchmark({
  name: 'volume-open',
  description:
    'Chromium opens a 512x512x300 CT series: first slice, wheel-scroll frames and steps, voxel-layer save, memory',
  async run(opts: BenchOptions): Promise<Result> {
    const rounds = wholeNumber(opts.extra.rounds, 3, 'rounds');
    const notches = wholeNumber(opts.extra.notches, 60, 'notches');
    const made = makeSeries();
    process.stdout.write(
      made.seconds ? `  made the series in ${num(made.seconds, 1)} s\n` : `  the series is cached: ${CACHE}\n`,
    );
    const files = Object.fromEntries(
      made.names.map((n) => [`/ct/${n}`, { type: 'application/dicom', body: fs.readFileSync(path.join(CACHE, n)) }]),
    );
    const seriesBytes = Object.values(files).reduce((a, f) => a + f.body.length, 0);
    buildConsole(opts.extra);
    const assets = await serveAssets(files);
    const server = await startAnnotary({ engine: opts.engine, runtime: 'built' });
    const browser = await launchBrowser();
    try {
      const { data } = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', { name: 'CT' });
      const projectId = data.project._id;
      await server.api('POST', `/project/${projectId}`, {
        categorySchema: {
          tools: [{ schemaId: '1', title: 'Liver', tool: 'medical-brush', color: '#d92d20' }],
          classifications: [],
        },
      });
      const urls = made.names.map((n) => `${assets.url}/ct/${n}`);
      const imported = await server.api<{ data: { assets: { taskId: string }[] } }>(
        'POST',
        `/project/${projectId}/cloud`,
        { assets: [{ data: urls[0], dataset: urls, externalId: 'chest-ct' }] },
      );
      const taskId = imported.data.assets[0]?.taskId as string;
      const url = `/work/tasks/${taskId}?project=${projectId}`;
      const context = await signedInContext(browser, server.url, server.apiKey);
      // Room for the 300 files' entries (250 by default).
      await context.addInitScript('performance.setResourceTimingBufferSize(5000)');
      const page = await context.newPage();

      // Opens: the first reads the files over loopback, the next ones from the browser's cache.
      const first: number[] = [];
      const phases: { before: number; files: number; after: number; count: number }[] = [];
      for (let r = 0; r <= rounds; r++) {
        await page.goto('/work');
        await page.goto(url, { waitUntil: 'commit' });
        const handle = await page.waitForFunction(MIDDLE_SHOWN, undefined, { polling: 'raf', timeout: 120_000 });
        const shown = (await handle.jsonValue()) as number;
        first.push(shown);
        const [count, start, end] = (await page.evaluate(FILES_READ)) as [number, number, number];
        phases.push({ before: start, files: end - start, after: shown - end, count });
      }
      const [cold, ...warm] = first;
      const warmPhases = phases.slice(1);
      const phase = (k: 'before' | 'files' | 'after') => median(warmPhases.map((p) => p[k]));
      const heap = await heapUsage(page);

      // Wheel notches over the slice: frame times, and each notch to its slice drawn.
      await page.evaluate(WATCH);
      const canvas = page.getByTestId('editor-canvas');
      const box = await canvas.boundingBox();
      if (!box) throw new Error('no canvas');
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.evaluate(START_FRAMES);
      const step: number[] = [];
      for (let i = 1; i <= notches; i++) {
        await page.mouse.wheel(0, -100);
        const want = SLICES / 2 + i;
        const handle = await page.waitForFunction(
          `(() => { const s = window.shown_.find(([k, t]) => k === ${want} && t >= window.wheel_);
            return s ? s[1] - window.wheel_ : false; })()`,
          undefined,
          { polling: 'raf', timeout: 30_000 },
        );
        step.push((await handle.jsonValue()) as number);
      }
      await page.waitForTimeout(200);
      const frames = (await page.evaluate(STOP_FRAMES)) as number[];

      // Save: one stroke of the class on the slice shown, then Submit before the draft's own save.
      await page.getByRole('button', { name: 'Liver tool' }).click();
      const cx = box.x + box.width / 2;
      const cy = box.y + box.height / 2;
      await page.mouse.move(cx - 60, cy);
      await page.mouse.down();
      await page.mouse.move(cx + 60, cy, { steps: 8 });
      await page.mouse.up();
      const uploads: { startTime: number; responseEnd: number }[] = [];
      page.on('requestfinished', (req) => {
        if (req.url().includes('/medical-brush')) uploads.push(req.timing());
      });
      const startedAt = (await page.evaluate('performance.timeOrigin + performance.now()')) as number;
      const started = await page.evaluate('performance.now()');
      const answered = page.waitForResponse((r) => r.url().includes(`/annotate/${taskId}`) && r.ok(), {
        timeout: 60_000,
      });
      await page.getByRole('button', { name: 'Submit', exact: true }).click();
      await answered;
      const saveMs = ((await page.evaluate('performance.now()')) as number) - (started as number);
      // The upload asked for once the file was made; its time is the server's check and store.
      const upload = uploads[0];
      const encodeMs = upload ? upload.startTime - startedAt : NaN;
      const uploadMs = upload ? upload.responseEnd : NaN;
      await context.close();
      const stored = await server.api<{ data: { task: { medicalBrushDataUrl?: string } } }>('GET', `/task/${taskId}`);
      if (!stored.data.task.medicalBrushDataUrl) throw new Error('the voxel layer was not stored');

      const f = percentiles(frames, [50, 95, 100]);
      const s = percentiles(step, [50, 95]);
      const warmFirst = median(warm);
      const backing = heap.backingStorageSize ?? Number.NaN;
      const rows: (string | number)[][] = [
        ['first slice, from the browser cache (median)', ms(warmFirst), '3 s', warmFirst <= 3000 ? 'met' : 'missed'],
        [
          'first slice, first open (files over loopback)',
          ms(cold ?? NaN),
          '3 s',
          (cold ?? NaN) <= 3000 ? 'met' : 'missed',
        ],
        ['  before the first file is asked for (median)', ms(phase('before')), '', ''],
        ['  the files read (median)', ms(phase('files')), '', ''],
        ['  the last file in to the slice drawn (median)', ms(phase('after')), '', ''],
        ['wheel scroll, frame p95', ms(f.p95!), '33 ms', f.p95! <= 33 ? 'met' : 'missed'],
        ['wheel notch to its slice drawn, p95', ms(s.p95!), '', ''],
        ['save of the voxel layer (Submit to stored)', ms(saveMs), '500 ms', saveMs <= 500 ? 'met' : 'missed'],
        ['  Submit to the upload asked (the .seg.nrrd made)', ms(encodeMs), '', ''],
        ['  the upload (checked and stored by the server)', ms(uploadMs), '', ''],
        ['  the rest (the answer sent and stored)', ms(saveMs - encodeMs - uploadMs), '', ''],
        ['ArrayBuffer memory with the volume open', mib(backing), '', ''],
        ['JS heap with the volume open', mib(heap.usedSize), '', ''],
      ];
      return {
        table: { columns: ['measure', 'figure', 'goal', ''], rows },
        summary:
          `first slice ${ms(warmFirst)} (first open ${ms(cold ?? NaN)}), scroll frame p95 ${ms(f.p95!)}, ` +
          `notch to slice p95 ${ms(s.p95!)}, save ${ms(saveMs)}, ArrayBuffers ${mib(backing)}`,
        data: {
          rounds,
          seriesBytes,
          madeSeconds: made.seconds,
          first,
          phases,
          frames: { ...f, count: frames.length },
          step: { ...s, count: step.length },
          saveMs,
          encodeMs,
          uploadMs,
          uploads: uploads.length,
          heap,
        },
        notes: [
          `the series: ${SLICES} files, ${mib(seriesBytes)}; ${notches} wheel notches, frame p50 ${ms(f.p50!)}, max ${ms(f.p100!)}`,
          `notch to slice p50 ${ms(s.p50!)}; voxel layer uploads during the save: ${uploads.length}`,
          'Headless Chromium with --disable-gpu (slices drawn on the CPU), on a machine other work shares.',
        ],
      };
    } finally {
      await browser.close();
      await server.stop();
      await assets.close();
    }
  },
});
