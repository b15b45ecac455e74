import type { Annotary } from '../client/index.js';
import { type ApiOptions, connect } from './connect.js';
import { UsageError } from './exit.js';
import { existingExternalIds } from './import-existing.js';
import { assertUniqueExternalIds, type ImportFormat, type ImportRow, readImportFile } from './import-rows.js';
import { storageRows } from './import-storage.js';
import { asRecord, printJson } from './output.js';
import { startProgress } from './progress.js';

interface ImportOptions extends ApiOptions {
  storage?: string;
  bucket?: string;
  path: string;
  format?: ImportFormat;
  batches?: string[];
  priority?: number;
  chunk: number;
}

// Far below the server's 32 MiB body limit, whatever the rows carry.
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

async function rowsToImport(client: Annotary, file: string | undefined, o: ImportOptions): Promise<ImportRow[]> {
  if (file && o.storage) throw new UsageError('give a file or --storage, not both');
  if (file) return readImportFile(file, o.format);
  if (!o.storage) throw new UsageError('give a file to import, or --storage S --bucket B [--path P]');
  if (!o.bucket) throw new UsageError('--storage needs --bucket');
  return storageRows(client, o.storage, o.bucket, o.path);
}

/** Creates the batches the rows name that the project does not have yet (by name). */
async function ensureBatches(client: Annotary, projectId: string, rows: ImportRow[]): Promise<void> {
  const wanted = new Set(rows.flatMap((r) => r.batches));
  if (wanted.size === 0) return;
  const list = asRecord(await client.batches.list(projectId)).batches;
  for (const b of Array.isArray(list) ? list : []) {
    wanted.delete(String(asRecord(b).name));
    wanted.delete(String(asRecord(b)._id));
  }
  if (wanted.size) await client.batches.create(projectId, { batches: [...wanted].map((name) => ({ name })) });
}

function asset(row: ImportRow) {
  return {
    data: row.data,
    externalId: row.externalId,
    ...(row.batches.length ? { batches: row.batches } : {}),
    ...(row.metadata ? { metadata: row.metadata } : {}),
    ...(row.contextData !== undefined ? { contextData: row.contextData } : {}),
    ...(row.storage ? { storage: row.storage } : {}),
  };
}

/** Requests of at most `count` assets and MAX_REQUEST_BYTES of JSON. */
function* chunks(rows: ImportRow[], count: number) {
  let chunk: ReturnType<typeof asset>[] = [];
  let bytes = 0;
  for (const row of rows) {
    const a = asset(row);
    const size = JSON.stringify(a).length + 1;
    if (chunk.length && (chunk.length >= count || bytes + size > MAX_REQUEST_BYTES)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(a);
    bytes += size;
  }
  if (chunk.length) yield chunk;
}

/**
 * `annotary import`: each request is all or nothing on the server, so an interrupted import
 * leaves whole requests behind, and a re-run skips every externalId already in the project.
 */
export async function importAssets(projectId: string, file: string | undefined, o: ImportOptions): Promise<void> {
  const client = connect(o);
  const rows = await rowsToImport(client, file, o);
  for (const row of rows) row.batches = [...new Set([...(o.batches ?? []), ...row.batches])];
  assertUniqueExternalIds(rows);
  // Before anything is written: a project that is not there fails here, not halfway.
  await client.projects.get(projectId);
  const existing = await existingExternalIds(
    client,
    projectId,
    rows.map((r) => r.externalId),
  );
  const todo = rows.filter((r) => !existing.has(r.externalId));
  const skipped = rows.length - todo.length;
  if (!o.json) {
    process.stderr.write(`${rows.length} assets read, ${skipped} already in the project, ${todo.length} to import\n`);
  }
  await ensureBatches(client, projectId, todo);

  const started = Date.now();
  const progress = startProgress({ label: 'import', total: todo.length, unit: 'assets' });
  let imported = 0;
  try {
    for (const assets of chunks(todo, o.chunk)) {
      await client.assets.import(projectId, { assets, ...(o.priority !== undefined ? { priority: o.priority } : {}) });
      imported += assets.length;
      progress.advance(assets.length);
    }
  } finally {
    progress.stop();
  }
  const seconds = (Date.now() - started) / 1000;
  if (o.json) printJson({ read: rows.length, skipped, imported, seconds });
  else process.stdout.write(`imported ${imported} assets in ${seconds.toFixed(1)} s (${skipped} skipped)\n`);
}
