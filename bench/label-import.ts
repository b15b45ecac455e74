/**
 * POST /v2/project/{id}/import/labels?format=coco on the built Annotary server: a COCO instances
 * file naming 100,000 images (`--images`) with `--objects` boxes each (3 unless said) is imported
 * as pre-labels of the project's 100,000 tasks waiting in Start. The assets and tasks are made
 * first through `/cloud`, in requests of 10,000, as a client would. The file goes as one request
 * body, as `annotary import-labels` sends it; the timer runs from sending it to the report.
 *
 * Baseline, in the same run: reading the same file with JSON.parse in this process (the floor of
 * any importer that reads COCO, which is one JSON document). The server streams the file instead
 * (its memory does not grow with the file), matches every image to its asset and writes every
 * task in one transaction; the ratio says what that costs over merely parsing it.
 *
 *   npm run bench -- label-import [--engine sqlite|postgres|both] [--images 100000] [--objects 3]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAnnotary } from './lib/annotary.js';
import { streetSceneOntology } from './lib/fixtures.js';
import { mib, num } from './lib/format.js';
import { wholeNumber } from './lib/labelled-project.js';
import { readMemory, resetPeakRss, rssTops, sampleRss } from './lib/memory.js';
import { timed } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const START_ONLY = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'], autoForward: false },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Complete'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];
const IMPORT_CHUNK = 10_000;
const name = (i: number) => `street-${String(i).padStart(6, '0')}.jpg`;

/** Writes the COCO file line by line (the benchmark's own memory stays small too); answers its size. */
async function writeCoco(file: string, images: number, objects: number): Promise<number> {
  const out = fs.createWriteStream(file);
  const write = (s: string) =>
    out.write(s) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => resolve()));
  await write('{"categories":[{"id":1,"name":"Car"},{"id":2,"name":"Pedestrian"}],\n"images":[\n');
  for (let i = 0; i < images; i++) {
    await write(`${i ? ',' : ''}{"id":${i + 1},"file_name":"${name(i)}","width":1920,"height":1080}\n`);
  }
  await write('],\n"annotations":[\n');
  let id = 0;
  for (let i = 0; i < images; i++) {
    for (let k = 0; k < objects; k++) {
      const [x, y] = [(i * 13 + k * 50) % 1800, (i * 7 + k * 30) % 1000];
      await write(
        `${id ? ',' : ''}{"id":${++id},"image_id":${i + 1},"category_id":${(k % 2) + 1},"bbox":[${x},${y},${40 + k},${30 + k}],"area":${(40 + k) * (30 + k)},"iscrowd":0}\n`,
      );
    }
  }
  await write(']}\n');
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return fs.statSync(file).size;
}

async function run(opts: BenchOptions): Promise<Result> {
  const images = wholeNumber(opts.extra.images, 100_000, 'images');
  const objects = wholeNumber(opts.extra.objects, 3, 'objects');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-bench-labels-'));
  const file = path.join(tmp, 'instances.json');
  const server = await startAnnotary({
    engine: opts.engine,
    runtime: 'built',
    env: { ANNOTARY_UPLOAD_LIMIT: String(2 * 1024 ** 3) },
  });
  try {
    const fileBytes = await writeCoco(file, images, objects);
    const { ms: parseMs } = await timed(async () => JSON.parse(await fs.promises.readFile(file, 'utf8')) as unknown);

    const created = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', { name: 'Labels' });
    const projectId = created.data.project._id;
    await server.api('POST', `/project/${projectId}`, { categorySchema: streetSceneOntology(), stages: START_ONLY });
    const { ms: assetsMs } = await timed(async () => {
      for (let from = 0; from < images; from += IMPORT_CHUNK) {
        const assets = Array.from({ length: Math.min(IMPORT_CHUNK, images - from) }, (_, k) => ({
          externalId: name(from + k),
          data: `https://cdn.example.com/bench/${name(from + k)}`,
          metadata: { width: 1920, height: 1080 },
        }));
        await server.api('POST', `/project/${projectId}/cloud`, { assets });
      }
    });

    const rssBefore = readMemory(server.process.pid)?.rssBytes ?? 0;
    const reset = resetPeakRss(server.process.pid);
    const rss = sampleRss(server.process.pid);
    const { value: report, ms: importMs } = await timed(async () => {
      const res = await fetch(`${server.url}/v2/project/${projectId}/import/labels?format=coco`, {
        method: 'POST',
        headers: { apikey: server.apiKey, 'content-type': 'application/octet-stream' },
        body: fs.createReadStream(file) as unknown as RequestInit['body'],
        duplex: 'half',
      } as RequestInit);
      const text = await res.text();
      if (!res.ok) throw new Error(`the import answered ${res.status}: ${text.slice(0, 300)}`);
      return (JSON.parse(text) as { data: { report: { tasks: number; objects: number } } }).data.report;
    });
    const tops = rssTops(rss.stop());
    const importPeak = reset ? readMemory(server.process.pid)?.peakRssBytes : undefined;
    if (report.tasks !== images || report.objects !== images * objects) {
      throw new Error(`the import took ${report.objects} objects into ${report.tasks} tasks, expected all`);
    }
    const { peakRssBytes } = await server.process.stop();
    return {
      table: {
        columns: [
          'images',
          'objects',
          'file',
          'JSON.parse (baseline)',
          'import',
          'x baseline',
          'images/s',
          'RSS before',
          'peak RSS (import)',
          'peak RSS (life)',
        ],
        rows: [
          [
            images,
            images * objects,
            mib(fileBytes),
            `${(parseMs / 1000).toFixed(2)} s`,
            `${(importMs / 1000).toFixed(2)} s`,
            (importMs / parseMs).toFixed(1),
            Math.round(images / (importMs / 1000)),
            mib(rssBefore),
            importPeak === undefined ? '-' : mib(importPeak),
            mib(peakRssBytes),
          ],
        ],
      },
      summary:
        `COCO label import on ${opts.engine}: ${num(images)} images, ${num(images * objects)} objects in ` +
        `${(importMs / 1000).toFixed(1)} s (${(importMs / parseMs).toFixed(1)}x a bare JSON.parse of the file), ` +
        `import peak RSS ${importPeak === undefined ? '-' : mib(importPeak)}`,
      notes: [
        `assets and tasks made first through /cloud in ${(assetsMs / 1000).toFixed(1)} s (not in the import's time)`,
        'import = from sending the file to the report: spooling, streaming parse, matching, one transaction of writes',
        `top RSS by tenth of the import (MiB): ${tops.map((b) => Math.round(b / 2 ** 20)).join(' ')}`,
        'server: node dist/cli/index.js serve (as npm start)',
      ],
      data: { images, objects, fileBytes, parseMs, importMs, rssBefore, importPeak: importPeak ?? null, peakRssBytes },
    };
  } finally {
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export default defineBenchmark({
  name: 'label-import',
  description: 'COCO label file of 100,000 images imported as pre-labels: time against JSON.parse, and peak RSS',
  run,
});
