import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { ApiQuery } from '../client/index.js';
import { type ApiOptions, connect } from './connect.js';
import { UsageError } from './exit.js';
import { asRecord, printJson } from './output.js';
import { startProgress } from './progress.js';

interface ExportOptions extends ApiOptions {
  output: string;
  type: 'task' | 'issue';
  format?: 'json' | 'ndjson';
  stage?: string[];
  batches?: string[];
  status?: string;
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  history: boolean;
  metadata: boolean;
}

type ExportQuery = ApiQuery<'/v2/exportV3', 'get'>;

function dateRange(after: string | undefined, before: string | undefined): string | undefined {
  if (!after && !before) return undefined;
  return JSON.stringify({ ...(after ? { $gt: after } : {}), ...(before ? { $lt: before } : {}) });
}

function exportQuery(projectId: string, format: 'json' | 'ndjson', o: ExportOptions): ExportQuery {
  const createdAt = dateRange(o.createdAfter, o.createdBefore);
  const updatedAt = dateRange(o.updatedAfter, o.updatedBefore);
  return {
    project: projectId,
    format,
    type: o.type,
    includeHistory: String(o.history),
    includeMetadata: String(o.metadata),
    ...(o.stage ? { stage: JSON.stringify(o.stage) } : {}),
    ...(o.batches ? { batches: JSON.stringify(o.batches) } : {}),
    ...(o.status ? { status: o.status } : {}),
    ...(createdAt ? { createdAt } : {}),
    ...(updatedAt ? { updatedAt } : {}),
  } as ExportQuery;
}

/** Writes the one entry of the export zip to `target` (yauzl reads the zip's directory first). */
async function extractOnlyEntry(zipFile: string, target: string): Promise<void> {
  const yauzl = (await import('yauzl')).default;
  const zip = await new Promise<import('yauzl').ZipFile>((resolve, reject) =>
    yauzl.open(zipFile, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z))),
  );
  try {
    const entry = await new Promise<import('yauzl').Entry>((resolve, reject) => {
      zip
        .once('entry', resolve)
        .once('error', reject)
        .once('end', () => reject(new Error('the export zip is empty')));
      zip.readEntry();
    });
    const stream = await new Promise<Readable>((resolve, reject) =>
      zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))),
    );
    await pipeline(stream, fs.createWriteStream(target));
  } finally {
    zip.close();
  }
}

/** `annotary export`: asks for the export, downloads its zip with progress, keeps the zip or its entry. */
export async function exportProject(projectId: string, o: ExportOptions): Promise<void> {
  const ext = path.extname(o.output).toLowerCase();
  if (!['.zip', '.json', '.ndjson'].includes(ext)) throw new UsageError('-o must name a .zip, .json or .ndjson file');
  const format = ext === '.zip' ? (o.format ?? 'json') : ext === '.ndjson' ? 'ndjson' : 'json';
  const client = connect(o);
  const started = Date.now();
  const { exportPath } = asRecord(await client.exports.create(exportQuery(projectId, format, o)));
  const response = await client.exports.download(String(exportPath));
  if (!response.body) throw new Error('the export download had no body');

  const zipPart = `${o.output}.${process.pid}.part`;
  const size = Number(response.headers.get('content-length') ?? 0);
  const progress = startProgress({ label: 'download', total: size, unit: 'bytes', lineEveryMs: 1000 });
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      progress.advance(chunk.length);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(response.body as WebReadableStream), counter, fs.createWriteStream(zipPart));
    progress.stop();
    if (ext === '.zip') {
      fs.renameSync(zipPart, o.output);
    } else {
      await extractOnlyEntry(zipPart, `${zipPart}.entry`);
      fs.renameSync(`${zipPart}.entry`, o.output);
    }
  } finally {
    progress.stop();
    fs.rmSync(zipPart, { force: true });
    fs.rmSync(`${zipPart}.entry`, { force: true });
  }
  const result = {
    output: o.output,
    format,
    bytes: fs.statSync(o.output).size,
    seconds: (Date.now() - started) / 1000,
  };
  if (o.json) printJson(result);
  else
    process.stdout.write(
      `wrote ${result.output} (${result.bytes} bytes, ${format}) in ${result.seconds.toFixed(1)} s\n`,
    );
}
