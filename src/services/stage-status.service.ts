import type { AppContext } from '../context.js';
import type { Stage } from '../schemas/stage.js';
import type { Executor } from '../store/db.js';
import { taskCountsByStage } from '../workflow/stage-usage.js';
import type { ProjectInfo } from '../workflow/types.js';
import type { Principal } from './access.js';
import { projectInfo } from './project-view.js';
import { loadProject } from './project.service.js';
import { pluginWarnings } from './plugin-session.service.js';
import { webhookWarnings } from './webhook.service.js';
import { publicStage } from './webhooks/webhook-credentials.js';

/** A problem shown on a stage in the workflow editor; `kind` names its source. */
export interface StageWarning {
  kind: string;
  [detail: string]: unknown;
}

/**
 * A source of stage warnings: warnings by stage id, for one project. Stages it has nothing to
 * say about are simply absent from the map.
 */
export type StageWarningProvider = (db: Executor, project: ProjectInfo) => Promise<Map<string, StageWarning[]>>;

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
