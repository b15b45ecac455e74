import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import {
  batchNamesOf,
  type Cursor,
  historyOf,
  issuePage,
  type IssuePageRow,
  type PageLimits,
  type TaskPageRow,
  taskPage,
} from '../../store/repositories/export.repository.js';
import { benchmarkRecordsOf } from '../../store/repositories/benchmark.repository.js';
import type { NextPage } from './export-chunks.js';
import { type TaskItemOptions, writeIssueItem, writeTaskItem } from './export-item-json.js';
import type { ExportPlan } from './export-options.js';

/*
 * The items of an export, one page at a time: a page of tasks (with their assets), then the
 * batch names and history entries of that page in two bulk queries. Each page is written out
 * before the next is read, so memory holds one page whatever the project's size.
 *
 * A page is bounded in bytes as well as in tasks: a count alone let a page of 500 tasks with long
 * histories (or large segmentation answers) hold hundreds of megabytes. The page query sums the
 * stored sizes of the next tasks (text columns, and the answers of their history) from record
 * headers and returns as many as fit in the budget, always at least one: a single task larger
 * than the budget is read alone (memory then holds that one task and its history).
 */

/**
 * 1 MiB of stored text is about 250 tasks of a few boxes with two history entries each. Reading
 * and writing such a page allocates some 2.5 MB, well inside V8's young generation, so a page
 * dies there instead of being promoted. Larger pages saved no time.
 */
export const EXPORT_PAGE_LIMITS: PageLimits = { tasks: 250, bytes: 1024 * 1024 };

/** The task items, one page per call. */
export function taskPages(
  db: Executor,
  projectId: string,
  plan: ExportPlan,
  stages: readonly Stage[],
  limits: PageLimits = EXPORT_PAGE_LIMITS,
  writer: Pick<TaskItemOptions, 'fields' | 'links' | 'parts' | 'metadata'> = {},
): NextPage {
  const stageNames = new Map(stages.map((s) => [s.id, s.name ?? s.id]));
  const filter = { projectId, ...plan };
  let after: Cursor | undefined;
  let done = false;
  return async () => {
    if (done) return undefined;
    const tasks = await taskPage(db, filter, after, limits, plan.includeHistory);
    const last = tasks[tasks.length - 1];
    // The last page: fewer candidates than asked for, and none of them left out for the budget.
    done = !last || (Number(last.candidates) < limits.tasks && tasks.length === Number(last.candidates));
    if (!last) return undefined;
    after = { createdAt: last.created_at, id: last.id };
    const ids = tasks.map((t) => t.id);
    const benchmarkIds = tasks.filter((t) => t.type === 'benchmark').map((t) => t.id);
    const [batches, history, benchmarks] = await Promise.all([
      batchNamesOf(db, [...new Set(tasks.map((t) => t.asset_id))]),
      plan.includeHistory ? historyOf(db, ids) : undefined,
      benchmarkRecordsOf(db, benchmarkIds),
    ]);
    return {
      size: tasks.length,
      write: (out, i) => {
        const t = tasks[i] as TaskPageRow;
        return writeTaskItem(out, t, {
          includeMetadata: plan.includeMetadata,
          history: history ? (history.get(t.id) ?? []) : undefined,
          stageNames,
          batchNames: batches.get(t.asset_id) ?? [],
          benchmark: benchmarks.get(t.id),
          ...writer,
        });
      },
    };
  };
}

/** Issue items, one page per call (issues are small rows: pages are bounded by count). */
export function issuePages(
  db: Executor,
  projectId: string,
  plan: ExportPlan,
  stages: readonly Stage[],
  pageSize = EXPORT_PAGE_LIMITS.tasks,
): NextPage {
  const stageNames = new Map(stages.map((s) => [s.id, s.name ?? s.id]));
  const filter = { projectId, status: plan.status, createdAt: plan.createdAt, updatedAt: plan.updatedAt };
  let after: Cursor | undefined;
  let done = false;
  return async () => {
    if (done) return undefined;
    const rows = await issuePage(db, filter, after, pageSize);
    done = rows.length < pageSize;
    const last = rows[rows.length - 1];
    if (!last) return undefined;
    after = { createdAt: last.created_at, id: last.id };
    return { size: rows.length, write: (out, i) => writeIssueItem(out, rows[i] as IssuePageRow, stageNames) };
  };
}
