import { conflict } from '../errors.js';
import type { Stage } from '../schemas/stage.js';
import type { Executor } from '../store/db.js';
import { facetCountsBy } from '../store/repositories/task-facet.repository.js';

/** Live tasks per stage of a project, from the counts the store keeps (migration 012). */
export async function taskCountsByStage(db: Executor, projectId: string): Promise<Map<string, number>> {
  return facetCountsBy(db, projectId, 'stage_id');
}

/** A stage that still holds tasks cannot leave the workflow: 409 naming it and its count. */
export async function assertStagesRemovable(
  db: Executor,
  projectId: string,
  before: Stage[],
  after: Stage[],
): Promise<void> {
  const kept = new Set(after.map((s) => s.id));
  const removed = before.filter((s) => !kept.has(s.id));
  if (removed.length === 0) return;
  const counts = await taskCountsByStage(db, projectId);
  const busy = removed.map((s) => ({ stage: s, count: counts.get(s.id) ?? 0 })).filter((x) => x.count > 0);
  if (busy.length) {
    throw conflict(
      busy.map((b) => `stage "${b.stage.id}" still holds ${b.count} task${b.count === 1 ? '' : 's'}`).join('; '),
      busy.map((b) => ({ field: 'stages', message: `stage "${b.stage.id}" still holds ${b.count} tasks` })),
    );
  }
}
