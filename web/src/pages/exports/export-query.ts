import type { ExportQuery } from '../../api/exports';

/** What the exports form holds; turned into the query of GET /exportV3 by exportQuery(). */
export interface ExportChoices {
  type: 'task' | 'issue';
  format: 'json' | 'ndjson';
  stages: string[];
  batches: string[];
  status: string;
  createdFrom: string;
  createdTo: string;
  updatedFrom: string;
  updatedTo: string;
  includeMetadata: boolean;
  includeHistory: boolean;
  consensusCopies: boolean;
}

export const DEFAULT_CHOICES: ExportChoices = {
  type: 'task',
  format: 'json',
  stages: [],
  batches: [],
  status: '',
  createdFrom: '',
  createdTo: '',
  updatedFrom: '',
  updatedTo: '',
  includeMetadata: true,
  includeHistory: true,
  consensusCopies: false,
};

const DAY_MS = 24 * 3600 * 1000;

/** A day range (YYYY-MM-DD, UTC, both ends included) as the API's `{"$gte", "$lt"}`; undefined when open. */
export function dayRange(from: string, to: string): string | undefined {
  const range: Record<string, string> = {};
  if (from) range.$gte = `${from}T00:00:00.000Z`;
  if (to) range.$lt = new Date(Date.parse(`${to}T00:00:00.000Z`) + DAY_MS).toISOString();
  return Object.keys(range).length ? JSON.stringify(range) : undefined;
}

/** The query of one export: only what narrows it (an empty choice is "every"). */
export function exportQuery(project: string, c: ExportChoices): ExportQuery {
  const q: ExportQuery = { project, format: c.format, type: c.type };
  if (c.status) q.status = c.status;
  const created = dayRange(c.createdFrom, c.createdTo);
  const updated = dayRange(c.updatedFrom, c.updatedTo);
  if (created) q.createdAt = created;
  if (updated) q.updatedAt = updated;
  if (c.type === 'task') {
    if (c.stages.length) q.stage = JSON.stringify(c.stages);
    if (c.batches.length) q.batches = JSON.stringify(c.batches);
    q.includeMetadata = String(c.includeMetadata);
    q.includeHistory = String(c.includeHistory);
    if (c.consensusCopies) q.taskTypes = JSON.stringify(['default', 'consensus']);
  }
  return q;
}

/** The export link's end of life: its path is /v2/exports/<unix seconds>/<signature>/<file>. */
export function linkExpiry(exportPath: string): Date | undefined {
  const m = /\/exports\/(\d+)\//.exec(exportPath);
  return m?.[1] ? new Date(Number(m[1]) * 1000) : undefined;
}

/** A size in bytes, in the unit a person reads. */
export function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}

const listOf = (json: string | undefined): string[] => {
  try {
    const value: unknown = JSON.parse(json ?? '[]');
    return Array.isArray(value) ? value.map(String) : [];
  } catch {
    return [];
  }
};

/** A `{"$gte", "$lt"}` day range back as the UTC days it covers ("2026-11-01 to 2026-11-03"). */
function daysOf(json: string | undefined): string | undefined {
  if (!json) return undefined;
  try {
    const r = JSON.parse(json) as Record<string, string>;
    const from = (r.$gte ?? r.$gt)?.slice(0, 10) ?? '…';
    const end = r.$lt ?? r.$lte;
    const to = end ? new Date(Date.parse(end) - (r.$lt ? 1 : 0)).toISOString().slice(0, 10) : '…';
    return `${from} to ${to}`;
  } catch {
    return json;
  }
}

/** An export of the project's history in a few words, from the filters it was asked with. */
export function describeRecord(
  e: { type: string; format: string; filters: Record<string, string> },
  stageName: (id: string) => string,
  batchName: (id: string) => string,
): string {
  const f = e.filters;
  const parts = [e.type === 'issue' ? 'issues' : 'tasks', e.format.toUpperCase()];
  const stages = listOf(f.stage);
  const batches = listOf(f.batches);
  if (stages.length) parts.push(`stages ${stages.map(stageName).join(', ')}`);
  if (batches.length) parts.push(`batches ${batches.map(batchName).join(', ')}`);
  if (f.status) parts.push(`status ${f.status}`);
  const created = daysOf(f.createdAt);
  const updated = daysOf(f.updatedAt);
  if (created) parts.push(`created ${created}`);
  if (updated) parts.push(`updated ${updated}`);
  if (f.includeHistory?.toLowerCase() === 'false') parts.push('no history');
  if (f.includeMetadata?.toLowerCase() === 'false') parts.push('no metadata');
  if (listOf(f.taskTypes).includes('consensus')) parts.push('with consensus copies');
  return parts.join(' · ');
}
