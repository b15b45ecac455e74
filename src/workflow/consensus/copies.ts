import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import { lockParent, retireCopies, storedCopies } from '../../store/repositories/consensus.repository.js';
import type { TaskRow } from '../../store/schema.js';
import { consensusSubStages, stageById } from '../graph.js';
import type { RoutingEnv } from '../stage-behavior.js';
import { freshTaskRow } from '../task-row.js';

/**
 * Consensus copies in the store. A copy is a task row of type `consensus` whose
 * `parent_task_id` is the task waiting in the container and whose `consensus_id` is the
 * container's id. It is worked in a sub-stage; once submitted it rests in the container itself
 * (stage = container id, completedAt set): that is its "done" mark, which is why a copy
 * arriving in the container never becomes a parent. The copies of one parent in one container
 * form a round; a parent entering the container again starts a new round.
 */

/** A fresh copy of `parent` for the container `consensusId`, not yet routed. */
export function makeCopy(parent: TaskRow, consensusId: string, env: RoutingEnv): TaskRow {
  // Copies are labelled independently: they start empty, not from the parent's answer.
  return freshTaskRow({
    id: env.newId(),
    projectId: parent.project_id,
    assetId: parent.asset_id,
    externalId: parent.external_id,
    stageId: consensusId,
    priority: parent.priority,
    now: env.now(),
    actor: env.actor,
    type: 'consensus',
    parentTaskId: parent.id,
    consensusId,
  });
}

/** Which sub-stage works copy number `k` (0-based) of a round. */
export function subStageFor(stages: readonly Stage[], consensusId: string, k: number): Stage {
  const subs = consensusSubStages(stages, consensusId);
  if (subs.length === 0) throw new Error(`Consensus stage "${consensusId}" has no sub-stages`);
  if (k < subs.length) return subs[k] as Stage;
  // Copies past one per sub-stage (minCopies, dynamic consensus) go round the sub-stages
  // marked consensusDynamic, or round all of them when none is marked.
  const marked = subs.filter((s) => s.consensusDynamic === true);
  const pool = marked.length ? marked : subs;
  return pool[(k - subs.length) % pool.length] as Stage;
}

/** The live copies of a parent's current round, seeing this run's unwritten changes too. */
export async function roundCopies(env: RoutingEnv, parentId: string, consensusId: string): Promise<TaskRow[]> {
  const stored = await storedCopies(env.trx, parentId, consensusId);
  const byId = new Map(stored.map((r) => [r.id, r]));
  for (const r of [...env.effects.newTasks, ...env.effects.updatedTasks]) {
    if (r.parent_task_id !== parentId || r.consensus_id !== consensusId) continue;
    if (r.deleted) byId.delete(r.id);
    else byId.set(r.id, r);
  }
  return [...byId.values()];
}

/** Copies in the order they were submitted (then made). */
export function bySubmission(a: TaskRow, b: TaskRow): number {
  const ca = a.completed_at ?? '\uffff';
  const cb = b.completed_at ?? '\uffff';
  return ca < cb
    ? -1
    : ca > cb
      ? 1
      : a.created_at < b.created_at
        ? -1
        : a.created_at > b.created_at
          ? 1
          : a.id < b.id
            ? -1
            : 1;
}

/**
 * Requeue of a parent out of its Consensus stage: its copies still being worked are dropped
 * (soft delete); submitted copies stay as the record of the round. Other tasks: nothing to do.
 */
export async function releaseConsensusParent(
  trx: Executor,
  stages: readonly Stage[],
  task: TaskRow,
  now: string,
): Promise<void> {
  if (task.type !== 'default' || stageById(stages, task.stage_id)?.type !== 'Consensus') return;
  // The parent's row first, as a copy's submission takes it: the two then queue, never deadlock.
  await lockParent(trx, task.id);
  await retireCopies(trx, task.id, task.stage_id, now, { openOnly: true });
}
