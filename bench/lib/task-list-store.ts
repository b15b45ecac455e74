import { loadTaskExtras } from '../../src/services/tasks/task-view.js';
import { openStore } from '../../src/store/db.js';
import {
  countQuery,
  countTasks,
  type PageWalk,
  pageIdsQuery,
  pageRows,
  pageWalk,
  rowsQuery,
  type TaskFilter,
  type TaskPage,
} from '../../src/store/repositories/task.repository.js';
import type { TaskRow } from '../../src/store/schema.js';
import type { AnnotaryServer } from './annotary.js';
import { queryPlan } from './query-plan.js';
import { summarize, timed } from './stats.js';

/** Where an unfiltered listing page's time goes in the store (task-list benchmark). */
export interface ListingPieces {
  page: number;
  walk: PageWalk;
  totalMs: number;
  idsMs: number;
  pageMs: number;
  countMs: number;
  extrasMs: number;
  plans: { ids: string[]; rows: string[]; count: string[] };
}

export async function medianMs(fn: () => Promise<unknown>, times = 5): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) samples.push((await timed(fn)).ms);
  return summarize(samples).p50;
}

/**
 * The unfiltered listing's pieces as task.repository.ts listTasks runs them (sort -createdAt),
 * straight on the server's store over a connection of their own, median of 5 each.
 */
export async function measureListingPieces(
  server: AnnotaryServer,
  projectId: string,
  limit: number,
  pages: number[],
): Promise<ListingPieces[]> {
  const store = await openStore(
    server.schema
      ? { databaseUrl: server.schema.databaseUrl, poolSize: 1 }
      : { sqliteFile: `${server.dataDir}/annotary.db` },
  );
  try {
    const filter: TaskFilter = { projectId, columns: [], batches: [] };
    const count = countQuery(store.db, filter).compile();
    const out: ListingPieces[] = [];
    for (const page of pages) {
      let total = 0;
      const totalMs = await medianMs(async () => {
        total = await countTasks(store.db, filter);
      });
      const p: TaskPage = { offset: (page - 1) * limit, limit, sort: [{ field: 'createdAt', descending: true }] };
      const walk = pageWalk(total, p);
      if (!walk) throw new Error(`page ${page} is past the last of ${total} tasks`);
      const ids = pageIdsQuery(store.db, filter, p, walk).compile();
      const idsMs = await medianMs(() => store.db.executeQuery(ids));
      let rows: TaskRow[] = [];
      const pageMs = await medianMs(async () => {
        rows = await pageRows(store.db, filter, p, walk);
      });
      if (rows.length !== limit) throw new Error(`page ${page}: the page query answered ${rows.length} rows`);
      const countMs = await medianMs(() => store.db.executeQuery(count));
      const extrasMs = await medianMs(() => loadTaskExtras(store.db, rows));
      const byIds = rowsQuery(
        store.db,
        rows.map((r) => r.id),
      ).compile();
      const plans = {
        ids: await queryPlan(store, ids),
        rows: await queryPlan(store, byIds),
        count: await queryPlan(store, count),
      };
      out.push({ page, walk, totalMs, idsMs, pageMs, countMs, extrasMs, plans });
    }
    return out;
  } finally {
    await store.close();
  }
}
