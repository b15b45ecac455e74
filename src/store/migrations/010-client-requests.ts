import type { Kysely } from 'kysely';

/*
 * Fields for requests the widely used client sends:
 * - tasks.is_draft: an answer was saved in the task's current stage without submitting it
 *   (POST /annotate without nextStage); any move of the task clears it. Filterable as `isDraft`.
 * - issues.pct_details: the point-cloud details of an issue (JSON object, kept as sent).
 * - an index on (project_id, external_id) of tasks, for externalId prefix filters and sorts;
 * - a covering index of task_history by (project_id, completed_at) for the performance report.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('tasks')
    .addColumn('is_draft', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('issues').addColumn('pct_details', 'text').execute();
  // `filter: {externalId: {$regex: "^prefix"}}` and `sort=externalId` walk this index.
  // The performance report's GROUP BY reads this index alone (every column it needs is in it).
  await db.schema
    .createIndex('task_history_project_completed')
    .on('task_history')
    .columns([
      'project_id',
      'completed_at',
      'completed_by',
      'stage_id',
      'trigger',
      'review_status',
      'duration',
      'stage_name',
      'stage_type',
    ])
    .execute();
  await db.schema.createIndex('tasks_project_external').on('tasks').columns(['project_id', 'external_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_project_external').ifExists().execute();
  await db.schema.dropIndex('task_history_project_completed').ifExists().execute();
  await db.schema.alterTable('issues').dropColumn('pct_details').execute();
  await db.schema.alterTable('tasks').dropColumn('is_draft').execute();
}
