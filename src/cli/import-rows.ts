import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { UsageError } from './exit.js';
import { asRecord } from './output.js';

/** One asset to import, as read from a file or a storage listing. */
export interface ImportRow {
  data: string;
  externalId: string;
  batches: string[];
  metadata?: Record<string, unknown>;
  contextData?: unknown;
  storage?: string;
  /** Where it came from, for messages: `row 12`, `line 7`. */
  where: string;
}

/** A row of the file that cannot be imported: exit code 1, naming the row. */
export class DataError extends Error {
  override readonly name = 'DataError';
}

export type ImportFormat = 'csv' | 'json' | 'ndjson';

/** The same default the server applies: the URL's last path segment. */
export function defaultExternalId(url: URL): string {
  const last = url.pathname.split('/').filter(Boolean).at(-1);
  return last ? decodeURIComponent(last) : url.href;
}

function httpUrl(value: string, where: string): URL {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // reported below
  }
  throw new DataError(`${where}: "${value.slice(0, 100)}" is not an http(s) URL`);
}

/** CSV cells hold text: JSON cells (metadata, contextData) are parsed, batches split on `;`. */
function fromCsvCell(name: string, value: unknown, where: string): unknown {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (name === 'batches') {
    return value.trim().startsWith('[') ? fromCsvCell('json', value, where) : value.split(';').map((b) => b.trim());
  }
  if (name === 'metadata' || name === 'contextData' || name === 'json') {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      throw new DataError(`${where}: ${name} is not valid JSON`);
    }
  }
  return value;
}

export function toRow(fields: Record<string, unknown>, where: string, csv: boolean): ImportRow {
  const read = (name: string) => (csv ? fromCsvCell(name, fields[name], where) : fields[name]);
  const data = read('data') ?? read('url');
  if (typeof data !== 'string' || !data.trim()) throw new DataError(`${where}: no URL in "data" or "url"`);
  const url = httpUrl(data.trim(), where);
  const externalId = read('externalId') ?? read('external_id');
  if (externalId !== undefined && (typeof externalId !== 'string' || !externalId)) {
    throw new DataError(`${where}: externalId must be a non-empty string`);
  }
  const batches = read('batches');
  const list = typeof batches === 'string' ? [batches] : (batches ?? []);
  if (!Array.isArray(list) || !list.every((b): b is string => typeof b === 'string' && b.length > 0)) {
    throw new DataError(`${where}: batches must be batch names`);
  }
  const metadata = read('metadata');
  if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))) {
    throw new DataError(`${where}: metadata must be a JSON object`);
  }
  const contextData = read('contextData');
  return {
    data: data.trim(),
    externalId: externalId ?? defaultExternalId(url),
    batches: list,
    ...(metadata !== undefined ? { metadata: asRecord(metadata) } : {}),
    ...(contextData !== undefined ? { contextData } : {}),
    where,
  };
}

export function formatOf(file: string, given: ImportFormat | undefined): ImportFormat {
  if (given) return given;
  const ext = path.extname(file).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.json') return 'json';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  throw new UsageError(`cannot tell the format of ${file} from its extension: pass --format csv, json or ndjson`);
}

/** Every row of a CSV (with a header line), JSON (an array) or NDJSON file. */
export async function readImportFile(file: string, given?: ImportFormat): Promise<ImportRow[]> {
  const format = formatOf(file, given);
  if (!fs.existsSync(file)) throw new UsageError(`no file ${file}`);
  const rows: ImportRow[] = [];
  if (format === 'csv') {
    const { parse } = await import('csv-parse');
    const parser = fs.createReadStream(file).pipe(parse({ columns: true, bom: true, skip_empty_lines: true }));
    let n = 1;
    try {
      for await (const record of parser) rows.push(toRow(asRecord(record), `row ${++n}`, true));
    } catch (err) {
      if (err instanceof DataError) throw err;
      throw new DataError(`${file} is not valid CSV: ${err instanceof Error ? err.message : String(err)}`);
    }
  } else if (format === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await fs.promises.readFile(file, 'utf8'));
    } catch {
      throw new DataError(`${file} is not valid JSON`);
    }
    if (!Array.isArray(parsed)) throw new DataError(`${file} must hold a JSON array of assets`);
    parsed.forEach((item, i) => rows.push(toRow(asRecord(item), `item ${i + 1}`, false)));
  } else {
    const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
    let n = 0;
    for await (const line of lines) {
      n++;
      if (!line.trim()) continue;
      let item: unknown;
      try {
        item = JSON.parse(line);
      } catch {
        throw new DataError(`line ${n}: not valid JSON`);
      }
      rows.push(toRow(asRecord(item), `line ${n}`, false));
    }
  }
  return rows;
}

/** The same externalId twice would make the server refuse the request: say which rows. */
export function assertUniqueExternalIds(rows: ImportRow[]): void {
  const seen = new Map<string, string>();
  for (const row of rows) {
    const first = seen.get(row.externalId);
    if (first) throw new DataError(`${row.where}: externalId "${row.externalId}" is also used by ${first}`);
    seen.set(row.externalId, row.where);
  }
}
