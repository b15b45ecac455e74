import { type FieldError, invalid } from '../../errors.js';
import type { Executor } from '../../store/db.js';
import { listBatches } from '../../store/repositories/project.repository.js';
import type { PerformanceScope } from '../../store/repositories/performance.repository.js';

/** The filters of the performance report and the Quality page: an interval and batches. */
export interface ScopeInput {
  interval?: string[] | undefined;
  batches?: string[] | undefined;
}

function isoBound(raw: string | undefined, field: string, errors: FieldError[]): string | undefined {
  if (raw === undefined) return undefined;
  const time = Date.parse(raw);
  if (Number.isNaN(time)) {
    errors.push({ field, message: 'must be an ISO 8601 date' });
    return undefined;
  }
  return new Date(time).toISOString();
}

/**
 * The scope the filters name: `interval` [from, to] (from inclusive, to exclusive) as ISO times,
 * `batches` by id or name; a 400 naming each field that is wrong.
 */
export async function readScope(db: Executor, projectId: string, input: ScopeInput): Promise<PerformanceScope> {
  const errors: FieldError[] = [];
  const from = isoBound(input.interval?.[0], 'interval[0]', errors);
  const to = isoBound(input.interval?.[1], 'interval[1]', errors);
  if (from !== undefined && to !== undefined && from > to) {
    errors.push({ field: 'interval', message: 'must be [from, to] with from not after to' });
  }
  const scope: PerformanceScope = { projectId, from, to };
  if (input.batches !== undefined) {
    const known = await listBatches(db, projectId);
    scope.batchIds = input.batches.map((ref, i) => {
      const hit = known.find((b) => b.id === ref) ?? known.find((b) => b.name === ref);
      if (!hit) errors.push({ field: `batches[${i}]`, message: `no batch "${ref}" in this project` });
      return hit?.id ?? '';
    });
  }
  if (errors.length) throw invalid(errors);
  return scope;
}
