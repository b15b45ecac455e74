import type { AppContext } from '../../context.js';
import { countFree, countHeld } from '../../store/repositories/work-queue.repository.js';
import { can, type Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { projectInfo, projectSettings } from '../projects/project-view.js';
import { mayTake } from './work-access.js';

/**
 * The most free tasks the work queue counts per stage: past it the answer says `waitingCapped`.
 * Counting stops there, so a stage of a million tasks costs as little as one of a thousand.
 */
export const QUEUE_COUNT_CAP = 1000;

export interface QueueStageView {
  stageId: string;
  stageName: string;
  stageType: 'Label' | 'Review';
  waiting: number | null;
  waitingCapped: boolean;
  assignedToYou: number;
}

/**
 * GET /project/{id}/queue (an extension): the Label and Review stages the caller may take tasks
 * from, each with how many tasks `/next` could hand the caller there now (`waiting`, the same
 * predicate as /next) and how many the caller holds. Labelers see `waiting` unless the project
 * turned `queueCountsEnabled` off; Reviewers, Leads and Managers always (they read every task anyway).
 */
export async function workQueue(ctx: AppContext, p: Principal, projectId: string) {
  const db = ctx.store.db;
  const { row, role } = await loadProject(db, p, projectId, 'read');
  const counts = can(role, 'readAll') || projectSettings(row).queueCountsEnabled === true;
  const stages = projectInfo(row).stages.filter((s) => mayTake(s, role, p.email));
  const data: QueueStageView[] = [];
  for (const stage of stages) {
    const at = { projectId: row.id, stageId: stage.id, email: p.email };
    const held = await countHeld(db, at);
    const free = counts ? await countFree(db, { ...at, cap: QUEUE_COUNT_CAP }) : null;
    data.push({
      stageId: stage.id,
      stageName: stage.name ?? stage.id,
      stageType: stage.type as 'Label' | 'Review',
      waiting: free === null ? null : Math.min(free, QUEUE_COUNT_CAP),
      waitingCapped: free !== null && free > QUEUE_COUNT_CAP,
      assignedToYou: held,
    });
  }
  return data;
}
