import type { Kysely } from 'kysely';

/**
 * Indexes for the overview metrics, so each reads an index instead of the tables' rows (tasks
 * carry their answers, history its answers: scanning them is reading every label of the project).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // AnnotationStatus and ConsensusRanges: counts by status and by score, copies left out.
  await db.schema
    .createIndex('tasks_project_status_score')
    .on('tasks')
    .columns(['project_id', 'deleted', 'type', 'status', 'consensus_score'])
    .execute();
  // TimePerTask per stage: totals, and the k-th duration of a stage by walking the index.
  await db.schema
    .createIndex('task_history_project_stage_duration')
    .on('task_history')
    .columns(['project_id', 'stage_id', 'duration', 'stage_type'])
    .execute();
  // TimePerTask overall: the k-th duration of every timed stage, in duration order.
  await db.schema
    .createIndex('task_history_project_duration')
    .on('task_history')
    .columns(['project_id', 'duration', 'stage_type'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('task_history_project_duration').ifExists().execute();
  await db.schema.dropIndex('task_history_project_stage_duration').ifExists().execute();
  await db.schema.dropIndex('tasks_project_status_score').ifExists().execute();
}
