import type { AssetInput } from '../../api/assets';

/**
 * Reading assets from what a person pastes or picks: URLs one a line; NDJSON (one asset object
 * a line); CSV with a header naming `data` (the URL) and optionally `externalId`. Errors name
 * the line, so the person can fix the file.
 */

export class AssetFileError extends Error {}

export function fromPastedUrls(text: string): AssetInput[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((data) => ({ data }));
}

function fromNdjson(text: string): AssetInput[] {
  return text
    .split(/\r?\n/)
    .map((line, i) => [line.trim(), i + 1] as const)
    .filter(([line]) => line)
    .map(([line, n]) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new AssetFileError(`line ${n} is not JSON`);
      }
      if (typeof value !== 'object' || value === null || typeof (value as { data?: unknown }).data !== 'string') {
        throw new AssetFileError(`line ${n} has no "data" URL`);
      }
      return value as AssetInput;
    });
}

/** One CSV line into fields: commas separate, double quotes enclose, "" is a quote. */
function csvFields(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted && c === '"' && line[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (c === ',' && !quoted) {
      out.push(field);
      field = '';
    } else {
      field += c;
    }
  }
  out.push(field);
  return out.map((f) => f.trim());
}

function fromCsv(text: string): AssetInput[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim());
  const header = csvFields(lines[0] ?? '');
  const dataAt = header.indexOf('data');
  const idAt = header.indexOf('externalId');
  if (dataAt < 0) throw new AssetFileError('the first line must name the columns, one of them "data"');
  return lines.slice(1).map((line, i) => {
    const f = csvFields(line);
    const data = f[dataAt];
    if (!data) throw new AssetFileError(`line ${i + 2} has no data URL`);
    const externalId = idAt >= 0 ? f[idAt] : undefined;
    return externalId ? { data, externalId } : { data };
  });
}

export function fromFile(name: string, text: string): AssetInput[] {
  if (/\.(ndjson|jsonl)$/i.test(name)) return fromNdjson(text);
  if (/\.csv$/i.test(name)) return fromCsv(text);
  throw new AssetFileError('choose a .csv, .ndjson or .jsonl file');
}
