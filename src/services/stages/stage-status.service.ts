import type { AppContext } from '../../context.js';
import { taskCountsByStage } from '../../workflow/stage-usage.js';
import type { StageWarningProvider } from '../../workflow/stage-warning.js';
import type { Principal } from '../../access.js';
import { projectInfo } from '../projects/project-view.js';
import { loadProject } from '../identity/project-access.js';
import { pluginWarnings } from '../plugins/plugin-session.service.js';
import { webhookWarnings } from '../webhooks/webhook.service.js';
import { publicStage } from '../projects/webhook-credentials.js';

/**
 * Every source of stage warnings. A new source (Plugin stages' failed calls, ...) is one more
 * function here; the endpoint shows each stage's warnings from all of them, in this order.
 */
export const STAGE_WARNING_PROVIDERS: readonly StageWarningProvider[] = [webhookWarnings, pluginWarnings];

/**
 * GET /project/{id}/stages: each stage of the workflow, in workflow order, with the number of
 * live tasks waiting in it and its warnings.
 */
export async function stageStatus(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  providers: readonly StageWarningProvider[] = STAGE_WARNING_PROVIDERS,
) {
  const db = ctx.store.db;
  const { row } = await loadProject(db, p, projectId, 'readAll');
  const info = projectInfo(row);
  const [counts, ...reports] = await Promise.all([
    taskCountsByStage(db, row.id),
    ...providers.map((provide) => provide(db, info)),
  ]);
  const stages = info.stages.map((stage) => ({
    ...publicStage(stage),
    taskCount: counts.get(stage.id) ?? 0,
    warnings: reports.flatMap((report) => report.get(stage.id) ?? []),
  }));
  return { stages };
}
