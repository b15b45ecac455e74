/**
 * GET /v2/exportV3 (NDJSON) on a real Annotary server process, for projects of 100,000 and
 * 1,000,000 labelled tasks (three objects and three answers each, one or two history entries
 * with their answers). Each size gets a fresh server, so its peak RSS (VmHWM, sampled by the
 * runner) is that export's: memory that stays flat from 100,000 to 1,000,000 tasks shows the
 * export streams instead of holding the project. The zip is then downloaded with no key and
 * its lines counted, to check the export holds every task.
 *
 * The server is the built one (`node dist/cli/index.js serve`, as `npm start` runs it) with
 * default V8 settings; `--runtime source` runs the sources through tsx instead, as the other
 * benchmarks do (tsx alone adds some 70 MiB of RSS).
 *
 *   npm run bench -- export [--engine sqlite|postgres|both] [--tasks 100000,1000000] [--heap <MiB>]
 *                           [--runtime built|source] [--settle <seconds idle before the export, 60>]
 *                           [--format ndjson|coco] [--objects <per task, 3>]
 *
 * `--format coco` exports the same tasks as a COCO dataset (the current answers, three objects a
 * task, or `--objects`): the zip's first entry is then instances.json, one line per image and per
 * annotation.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type Runtime, startAnnotary } from './lib/annotary.js';
import { mib, num } from './lib/format.js';
import { describeOtherCpu, type OtherCpu, watchOtherCpu } from './lib/interference.js';
import { labelledProject, taskCounts, wholeNumber } from './lib/labelled-project.js';
import { readMemory, resetPeakRss, rssTops, sampleRss } from './lib/memory.js';
import { timed } from './lib/stats.js';
import { readFirstEntry } from './lib/zip-entry.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

interface Figures {
  tasks: number;
  seedSeconds: number;
  exportSeconds: number;
  downloadSeconds: number;
  zipBytes: number;
  uncompressedBytes: number;
  lines: number;
  rssBeforeBytes: number;
  /** VmHWM before the export: the seeding's and start-up's peak. */
  peakBeforeBytes: number;
  /** Peak RSS of the export request itself (VmHWM reset just before it), or undefined. */
  exportPeakBytes: number | undefined;
  /** VmHWM over the process's life: start-up, seeding, export and download. */
  peakRssBytes: number;
  /** Highest RSS in each tenth of the export's time: flat tops mean nothing accumulates. */
  rssTopsByTenth: number[];
  /** Cores' worth of CPU other processes (PostgreSQL included) used during the export. */
  otherCpu: OtherCpu | undefined;
}

/** Bytes and newline count of the zip's first entry, streamed (the bench stays small too). */
async function countLines(zipFile: string): Promise<{ lines: number; bytes: number }> {
  let lines = 0;
  const bytes = await readFirstEntry(zipFile, (chunk) => {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  });
  return { lines, bytes };
}

function formatOf(opts: BenchOptions): 'ndjson' | 'coco' {
  const format = opts.extra.format ?? 'ndjson';
  if (format !== 'ndjson' && format !== 'coco') throw new Error(`--format must be ndjson or coco, got ${format}`);
  return format;
}

/** `--objects <n>`: objects in each task's answer (3 unless said). */
function objectsOf(opts: BenchOptions): number {
  return wholeNumber(opts.extra.objects, 3, 'objects');
}

function runtimeOf(opts: BenchOptions): Runtime {
  const runtime = opts.extra.runtime ?? 'built';
  if (runtime !== 'built' && runtime !== 'source') throw new Error(`--runtime must be built or source, got ${runtime}`);
  return runtime;
}

async function measure(opts: BenchOptions, tasks: number): Promise<Figures> {
  // `--heap <MiB>` caps the server's V8 old space: an export that still completes under a small
  // cap shows how little it keeps alive (peak RSS alone also counts garbage V8 has not collected).
  const heap = opts.extra.heap;
  if (heap !== undefined && !/^\d+$/.test(heap)) throw new Error(`--heap must be a number of MiB, got ${heap}`);
  const server = await startAnnotary({
    engine: opts.engine,
    nodeFlags: heap ? [`--max-old-space-size=${heap}`] : [],
    runtime: runtimeOf(opts),
  });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-bench-export-'));
  try {
    const { projectId, seedSeconds } = await labelledProject(server, tasks, objectsOf(opts));
    process.stdout.write(`  ${num(tasks)} tasks seeded in ${seedSeconds.toFixed(1)} s\n`);
    // `--settle <s>` (default 60): the server sits idle before the export, whatever the size.
    // V8 shrinks a heap that has gone idle; seeding a million tasks takes minutes and 100,000
    // seconds, so without a common wait the large export started from a shrunk heap and the small
    // one from the start-up's (on SQLite 150 against 236 MiB of peak for the same 100,000 tasks).
    const settle = Number(opts.extra.settle ?? 60);
    if (!(settle >= 0)) throw new Error(`--settle must be a number of seconds, got ${opts.extra.settle}`);
    if (settle > 0) await new Promise((resolve) => setTimeout(resolve, settle * 1000));
    const before = readMemory(server.process.pid);
    const rssBeforeBytes = before?.rssBytes ?? 0;
    const peakBeforeBytes = before?.peakRssBytes ?? 0;
    const reset = resetPeakRss(server.process.pid);
    const others = watchOtherCpu([server.process.pid, process.pid]);
    const rss = sampleRss(server.process.pid);
    const { value: link, ms: exportMs } = await timed(async () => {
      const res = await server.api<{ data: { exportPath: string } }>(
        'GET',
        `/exportV3?project=${projectId}&format=${formatOf(opts)}&includeMetadata=true&includeHistory=true`,
      );
      return res.data.exportPath;
    });
    const otherCpu = others.stop();
    const rssTopsByTenth = rssTops(rss.stop());
    const exportPeakBytes = reset ? readMemory(server.process.pid)?.peakRssBytes : undefined;
    const zipFile = path.join(tmp, 'export.zip');
    const { ms: downloadMs } = await timed(async () => {
      // The link names the server's public URL; the benchmark reaches the same path on its port.
      const res = await fetch(`${server.url}${new URL(link).pathname}`);
      if (!res.ok || !res.body) throw new Error(`download answered ${res.status}`);
      await pipeline(res.body, fs.createWriteStream(zipFile));
    });
    const { lines, bytes } = await countLines(zipFile);
    // COCO: at least a line per image and per annotation (`--objects` a task).
    const expected = formatOf(opts) === 'coco' ? tasks * (1 + objectsOf(opts)) : tasks;
    if (lines < expected) throw new Error(`the export holds ${lines} lines, expected ${expected}`);
    const { peakRssBytes } = await server.process.stop();
    return {
      tasks,
      seedSeconds,
      exportSeconds: exportMs / 1000,
      downloadSeconds: downloadMs / 1000,
      zipBytes: fs.statSync(zipFile).size,
      uncompressedBytes: bytes,
      lines,
      rssBeforeBytes,
      peakBeforeBytes,
      exportPeakBytes,
      peakRssBytes,
      rssTopsByTenth,
      otherCpu,
    };
  } finally {
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function run(opts: BenchOptions): Promise<Result> {
  const sizes = taskCounts(opts.extra.tasks, [100_000, 1_000_000]);
  const figures: Figures[] = [];
  for (const n of sizes) figures.push(await measure(opts, n));
  const first = figures[0] as Figures;
  const last = figures[figures.length - 1] as Figures;
  return {
    table: {
      columns: [
        'tasks',
        'export',
        'tasks/s',
        'download',
        'zip',
        'uncompressed',
        'RSS before',
        'peak RSS (export)',
        'top RSS 1st / last tenth',
        'peak RSS (life)',
        'other CPU',
      ],
      rows: figures.map((f) => [
        f.tasks,
        `${f.exportSeconds.toFixed(2)} s`,
        Math.round(f.tasks / f.exportSeconds),
        `${f.downloadSeconds.toFixed(2)} s`,
        mib(f.zipBytes),
        mib(f.uncompressedBytes),
        mib(f.rssBeforeBytes),
        f.exportPeakBytes === undefined ? '-' : mib(f.exportPeakBytes),
        `${mib(f.rssTopsByTenth[0] ?? 0)} / ${mib(f.rssTopsByTenth.at(-1) ?? 0)}`,
        mib(f.peakRssBytes),
        describeOtherCpu(f.otherCpu),
      ]),
    },
    summary:
      `${formatOf(opts) === 'coco' ? 'COCO' : 'NDJSON'} export on ${opts.engine}, ${objectsOf(opts)} objects a task: ${num(first.tasks)} tasks in ${first.exportSeconds.toFixed(1)} s ` +
      `(export peak RSS ${mib(first.exportPeakBytes ?? first.peakRssBytes)})` +
      (figures.length > 1
        ? `; ${num(last.tasks)} tasks in ${last.exportSeconds.toFixed(1)} s (export peak RSS ${mib(last.exportPeakBytes ?? last.peakRssBytes)})`
        : ''),
    notes: [
      'export = the GET /v2/exportV3 request, which streams the whole zip to disk before it answers',
      'peak RSS (export) = VmHWM of the server process reset right before the export request and read right after ' +
        'it: the peak of the export alone; "-" where /proc/<pid>/clear_refs cannot be written',
      "peak RSS (life) = VmHWM over the process's life (one fresh process per size): start-up, seeding, export, download",
      ...figures.map(
        (f) => `VmHWM before the export (start-up and seeding), ${num(f.tasks)} tasks: ${mib(f.peakBeforeBytes)}`,
      ),
      'top RSS = highest VmRSS (sampled every 100 ms) in the first and in the last tenth of the export: equal tops ' +
        'mean memory does not grow as the export goes on',
      ...figures.map(
        (f) =>
          `top RSS by tenth, ${num(f.tasks)} tasks (MiB): ${f.rssTopsByTenth.map((b) => Math.round(b / 2 ** 20)).join(' ')}`,
      ),
      `server: ${runtimeOf(opts) === 'built' ? 'node dist/cli/index.js serve (as npm start)' : 'node --import tsx src/cli/index.ts serve'}`,
      'other CPU = cores used by other processes during the export (PostgreSQL backends included)',
      `the server sat idle ${opts.extra.settle ?? 60} s after seeding, before each export (--settle)`,
      ...(opts.extra.heap ? [`server run with --max-old-space-size=${opts.extra.heap}`] : []),
    ],
    data: { figures, heapLimitMiB: opts.extra.heap ?? null, runtime: runtimeOf(opts) },
  };
}

export default defineBenchmark({
  name: 'export',
  description:
    'GET /v2/exportV3 as NDJSON of 100,000 and 1,000,000 labelled tasks with history: time, zip size, server peak RSS (--tasks to change)',
  run,
});
