import type { Kysely } from 'kysely';

/**
 * Webhook stage bookkeeping. Deliveries themselves are jobs (the jobs table); these tables keep
 * what outlives a job: one log line per attempt, and the tasks whose delivery failed for good.
 * Written against Kysely<unknown>: a migration must not depend on today's table types.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_logs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('stage_id', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.notNull())
    // The HTTP status when the receiver answered, else null and `error` says what happened.
    .addColumn('status', 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // The log is read newest first, for a project or one of its stages.
  await db.schema
    .createIndex('webhook_logs_project')
    .on('webhook_logs')
    .columns(['project_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_logs_stage')
    .on('webhook_logs')
    .columns(['project_id', 'stage_id', 'created_at', 'id'])
    .execute();

  // One row per task at most: a task sits in one stage at a time. The row counts only while the
  // task is still in that stage on the same visit (stage_id and entered_at match the task).
  await db.schema
    .createTable('webhook_failures')
    .addColumn('task_id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('stage_id', 'text', (c) => c.notNull())
    .addColumn('entered_at', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('error', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_failures_stage')
    .on('webhook_failures')
    .columns(['project_id', 'stage_id', 'failed_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_failures').ifExists().execute();
  await db.schema.dropTable('webhook_logs').ifExists().execute();
}
