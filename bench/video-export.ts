/**
 * One video task's export expanded to every frame: ten minutes at 30 fps (18,000 frames) with 50
 * tracks over its whole length, keyframes every 150 frames (6,000 stored entries), expanded to
 * 900,000 entries by GET /v2/exportV3. The server is a real process; its RSS is sampled through
 * the export (flat tops from the first to the last tenth mean the expansion streams rather than
 * holds the task).
 *
 * Baselines in the same run: the same task exported with includeOnlyKeyFrames=true (the stored
 * keyframes, what every export already paid), and the floor of the expanded export's own bytes:
 * the same 900,000 entries built in this process, JSON-encoded and deflated at the export's level
 * (no database, no HTTP, no zip file).
 *
 *   npm run bench -- video-export [--engine sqlite|postgres|both] [--runtime source|built]
 *                                 [--frames 18000] [--tracks 50] [--every 150]
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { type Runtime, startAnnotary } from './lib/annotary.js';
import { mib, num } from './lib/format.js';
import { wholeNumber } from './lib/labelled-project.js';
import { readMemory, resetPeakRss, rssTops, sampleRss } from './lib/memory.js';
import { timed } from './lib/stats.js';
import { readFirstEntry } from './lib/zip-entry.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const ONTOLOGY = {
  tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box' }],
  classifications: [],
};
const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Complete'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];

interface Shape {
  frames: number;
  tracks: number;
  every: number;
}

/** Track k's keyframe on a frame: a box drifting across a 1920x1080 picture. */
function keyframe(k: number, page: number) {
  const x = (k * 37 + page * 0.5) % 1800;
  const y = (k * 19 + page * 0.25) % 1000;
  return { schemaId: 'car', objectId: `track-${k}`, page, 'bounding-box': { x, y, width: 80 + (k % 40), height: 60 } };
}

function keyframes(s: Shape) {
  const out: ReturnType<typeof keyframe>[] = [];
  for (let k = 0; k < s.tracks; k++) for (let p = 0; p < s.frames; p += s.every) out.push(keyframe(k, p));
  return out;
}

/** Entries (`"objectId":` occurrences) and bytes of the zip's first entry, streamed. */
async function countEntries(zipFile: string): Promise<{ entries: number; bytes: number }> {
  const needle = Buffer.from('"objectId":');
  let entries = 0;
  let tail = Buffer.alloc(0);
  const bytes = await readFirstEntry(zipFile, (chunk) => {
    const buf = Buffer.concat([tail, chunk]);
    for (let i = buf.indexOf(needle); i !== -1; i = buf.indexOf(needle, i + 1)) entries++;
    tail = buf.subarray(Math.max(0, buf.length - needle.length + 1));
  });
  return { entries, bytes };
}

/**
 * The floor: the expanded entries (every frame of every track, boxes interpolated by hand here)
 * JSON-encoded one by one and deflated at level 1, as the export's zip does, in this process.
 */
async function floor(s: Shape): Promise<{ ms: number; bytes: number }> {
  const parts = function* () {
    for (let k = 0; k < s.tracks; k++) {
      const keys: ReturnType<typeof keyframe>[] = [];
      for (let p = 0; p < s.frames; p += s.every) keys.push(keyframe(k, p));
      let part: string[] = [];
      for (let f = 0; f < s.frames; f++) {
        const i = Math.floor(f / s.every);
        const a = keys[i] as ReturnType<typeof keyframe>;
        const b = keys[i + 1] ?? a;
        const t = (f - a.page) / s.every;
        const from = a['bounding-box'];
        const to = b['bounding-box'];
        const box = {
          x: from.x + (to.x - from.x) * t,
          y: from.y + (to.y - from.y) * t,
          width: from.width,
          height: from.height,
        };
        part.push(JSON.stringify({ ...a, page: f, 'bounding-box': box, title: 'Car', interpolated: true }));
        if (part.length === 1000) {
          yield `${part.join(',')},`;
          part = [];
        }
      }
      if (part.length) yield `${part.join(',')},`;
    }
  };
  const { ms, value } = await timed(async () => {
    let bytes = 0;
    await pipeline(
      Readable.from(parts()),
      zlib.createDeflateRaw({ level: 1 }),
      async (chunks: AsyncIterable<Buffer>) => {
        for await (const c of chunks) bytes += c.length;
      },
    );
    return bytes;
  });
  return { ms, bytes: value };
}

function runtimeOf(opts: BenchOptions): Runtime {
  const runtime = opts.extra.runtime ?? 'source';
  if (runtime !== 'built' && runtime !== 'source') throw new Error(`--runtime must be built or source, got ${runtime}`);
  return runtime;
}

interface ExportFigures {
  label: string;
  seconds: number;
  entries: number;
  zipBytes: number;
  uncompressedBytes: number;
  rssBeforeBytes: number;
  peakBytes: number | undefined;
  tops: number[];
}

async function run(opts: BenchOptions): Promise<Result> {
  const shape: Shape = {
    frames: wholeNumber(opts.extra.frames, 18_000, 'frames'),
    tracks: wholeNumber(opts.extra.tracks, 50, 'tracks'),
    every: wholeNumber(opts.extra.every, 150, 'every'),
  };
  const server = await startAnnotary({ engine: opts.engine, runtime: runtimeOf(opts) });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-bench-video-export-'));
  try {
    const created = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', { name: 'Video' });
    const projectId = created.data.project._id;
    await server.api('POST', `/project/${projectId}`, { categorySchema: ONTOLOGY, stages: STAGES });
    const imported = await server.api<{ data: { assets: { taskId: string }[] } }>(
      'POST',
      `/project/${projectId}/cloud`,
      {
        assets: [
          {
            data: 'https://cdn.example.com/drive.mp4',
            externalId: 'drive.mp4',
            metadata: { width: 1920, height: 1080, frameTotal: shape.frames, frameRate: 30 },
          },
        ],
      },
    );
    const taskId = imported.data.assets[0]?.taskId as string;
    const stored = keyframes(shape);
    const { ms: submitMs } = await timed(() =>
      server.api('POST', `/annotate/${taskId}`, { answer: { tools: stored, classifications: [], relations: [] } }),
    );
    const exportOnce = async (label: string, query: string): Promise<ExportFigures> => {
      const before = readMemory(server.process.pid);
      const reset = resetPeakRss(server.process.pid);
      const rss = sampleRss(server.process.pid, 50);
      const { value: link, ms } = await timed(async () => {
        const res = await server.api<{ data: { exportPath: string } }>(
          'GET',
          `/exportV3?project=${projectId}&format=json&includeHistory=false${query}`,
        );
        return res.data.exportPath;
      });
      const tops = rssTops(rss.stop());
      const peakBytes = reset ? readMemory(server.process.pid)?.peakRssBytes : undefined;
      const zipFile = path.join(tmp, `${label}.zip`);
      const res = await fetch(`${server.url}${new URL(link).pathname}`);
      if (!res.ok || !res.body) throw new Error(`download answered ${res.status}`);
      await pipeline(res.body, fs.createWriteStream(zipFile));
      const { entries, bytes } = await countEntries(zipFile);
      return {
        label,
        seconds: ms / 1000,
        entries,
        zipBytes: fs.statSync(zipFile).size,
        uncompressedBytes: bytes,
        rssBeforeBytes: before?.rssBytes ?? 0,
        peakBytes,
        tops,
      };
    };
    // A first keyframes-only export warms the server's code paths for both measured ones.
    await exportOnce('warm-up', '&includeOnlyKeyFrames=true');
    const keyOnly = await exportOnce('keyframes only', '&includeOnlyKeyFrames=true');
    const expanded = await exportOnce('expanded', '');
    const expected = shape.tracks * shape.frames;
    if (expanded.entries !== expected)
      throw new Error(`the export holds ${expanded.entries} entries, expected ${expected}`);
    if (keyOnly.entries !== stored.length)
      throw new Error(`keyframes only: ${keyOnly.entries}, expected ${stored.length}`);
    const raw = await floor(shape);
    const rows = [keyOnly, expanded].map((f) => [
      f.label,
      num(f.entries),
      `${f.seconds.toFixed(2)} s`,
      num(Math.round(f.entries / f.seconds)),
      mib(f.zipBytes),
      mib(f.uncompressedBytes),
      mib(f.rssBeforeBytes),
      f.peakBytes === undefined ? '-' : mib(f.peakBytes),
      `${mib(f.tops[0] ?? 0)} / ${mib(f.tops.at(-1) ?? 0)}`,
    ]);
    rows.push([
      'floor (encode + deflate here)',
      num(expected),
      `${(raw.ms / 1000).toFixed(2)} s`,
      num(Math.round(expected / (raw.ms / 1000))),
      mib(raw.bytes),
      '-',
      '-',
      '-',
      '-',
    ]);
    return {
      table: {
        columns: [
          'export',
          'entries',
          'time',
          'entries/s',
          'zip',
          'uncompressed',
          'RSS before',
          'peak RSS (export)',
          'top RSS 1st / last tenth',
        ],
        rows,
      },
      summary:
        `${num(expected)} entries (${shape.tracks} tracks x ${num(shape.frames)} frames from ${num(stored.length)} keyframes) ` +
        `exported in ${expanded.seconds.toFixed(1)} s on ${opts.engine} (${(expanded.seconds / (raw.ms / 1000)).toFixed(2)}x the floor; ` +
        `keyframes only ${keyOnly.seconds.toFixed(2)} s); peak RSS ${mib(expanded.peakBytes ?? 0)} against ${mib(keyOnly.peakBytes ?? 0)} keyframes only`,
      notes: [
        `submit of the ${num(stored.length)} keyframes (POST /annotate): ${submitMs.toFixed(0)} ms`,
        'time = the GET /v2/exportV3 request, which streams the zip to disk before it answers',
        'peak RSS (export) = VmHWM of the server reset right before the request and read right after it',
        `top RSS by tenth of the expanded export (MiB): ${expanded.tops.map((b) => Math.round(b / 2 ** 20)).join(' ')}`,
        `server: ${runtimeOf(opts) === 'built' ? 'node dist/cli/index.js serve' : 'node --import tsx src/cli/index.ts serve'}`,
      ],
      data: { shape, submitMs, keyOnly, expanded, floor: raw },
    };
  } finally {
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export default defineBenchmark({
  name: 'video-export',
  description:
    'one video task exported with its tracks expanded to every frame (10 min at 30 fps, 50 tracks: 900,000 entries): time, server RSS, against keyframes only and an encode+deflate floor',
  run,
});
