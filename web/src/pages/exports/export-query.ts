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

/** The choices in a few words, for the list of exports made. */
export function describeChoices(
  c: ExportChoices,
  stageName: (id: string) => string,
  batchName: (id: string) => string,
): string {
  const parts = [c.type === 'issue' ? 'issues' : 'tasks', c.format.toUpperCase()];
  if (c.type === 'task' && c.stages.length) parts.push(`stages ${c.stages.map(stageName).join(', ')}`);
  if (c.type === 'task' && c.batches.length) parts.push(`batches ${c.batches.map(batchName).join(', ')}`);
  if (c.status) parts.push(`status ${c.status}`);
  if (c.createdFrom || c.createdTo) parts.push(`created ${c.createdFrom || '…'} to ${c.createdTo || '…'}`);
  if (c.updatedFrom || c.updatedTo) parts.push(`updated ${c.updatedFrom || '…'} to ${c.updatedTo || '…'}`);
  if (c.type === 'task' && !c.includeHistory) parts.push('no history');
  if (c.type === 'task' && !c.includeMetadata) parts.push('no metadata');
  if (c.type === 'task' && c.consensusCopies) parts.push('with consensus copies');
  return parts.join(' · ');
}
