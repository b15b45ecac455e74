import type { Stage } from '../schemas/stage.js';
import type { Executor } from '../store/db.js';
import {
  batchNamesOf,
  type Cursor,
  historyOf,
  issuePage,
  type IssuePageRow,
  taskPage,
  type TaskPageRow,
} from '../store/repositories/export.repository.js';
import { issueItemJson, taskItemJson } from './export-item-json.js';
import type { ExportPlan } from './export-options.js';

/*
 * The items of an export, one page at a time: a page of tasks (with their assets), then the
 * batch names and history entries of that page in two bulk queries. Each page is serialized and
 * handed on before the next is read, so memory holds one page whatever the project's size.
 */

/**
 * Tasks per page. Per-query overhead is already negligible at a few hundred; larger pages only
 * raise the peak: a page's rows live while it is written, long enough for V8 to promote them to
 * the old generation, which a full collection alone frees (measured on 100,000 tasks: server
 * peak +60 MB at 500, +140 MB at 1000, +200 MB at 2000, same speed).
 */
export const EXPORT_PAGE_SIZE = 500;

/** Serialized task items, one array per page of EXPORT_PAGE_SIZE tasks. */
export async function* taskItemPages(
  db: Executor,
  projectId: string,
  plan: ExportPlan,
  stages: readonly Stage[],
): AsyncGenerator<string[]> {
  const stageNames = new Map(stages.map((s) => [s.id, s.name ?? s.id]));
  const filter = { projectId, ...plan };
  let after: Cursor | undefined;
  for (;;) {
    const rows = await taskPage(db, filter, after, EXPORT_PAGE_SIZE);
    if (!rows.length) return;
    const [batches, history] = await Promise.all([
      batchNamesOf(db, [...new Set(rows.map((r) => r.asset_id))]),
      plan.includeHistory
        ? historyOf(
            db,
            rows.map((r) => r.id),
          )
        : Promise.resolve(undefined),
    ]);
    yield rows.map((t) =>
      taskItemJson(t, {
        includeMetadata: plan.includeMetadata,
        history: history ? (history.get(t.id) ?? []) : undefined,
        stageNames,
        batchNames: batches.get(t.asset_id) ?? [],
      }),
    );
    const last = rows[rows.length - 1] as TaskPageRow;
    if (rows.length < EXPORT_PAGE_SIZE) return;
    after = { createdAt: last.created_at, id: last.id };
  }
}

/** Serialized issue items, one array per page. */
export async function* issueItemPages(
  db: Executor,
  projectId: string,
  plan: ExportPlan,
  stages: readonly Stage[],
): AsyncGenerator<string[]> {
  const stageNames = new Map(stages.map((s) => [s.id, s.name ?? s.id]));
  const filter = { projectId, status: plan.status, createdAt: plan.createdAt, updatedAt: plan.updatedAt };
  let after: Cursor | undefined;
  for (;;) {
    const rows = await issuePage(db, filter, after, EXPORT_PAGE_SIZE);
    if (!rows.length) return;
    yield rows.map((i) => issueItemJson(i, stageNames));
    const last = rows[rows.length - 1] as IssuePageRow;
    if (rows.length < EXPORT_PAGE_SIZE) return;
    after = { createdAt: last.created_at, id: last.id };
  }
}
