import type { Kysely } from 'kysely';

/** Assets, their batches, tasks, the history of every stage exit, and issues on tasks. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('assets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('context_data', 'text')
    .addColumn('metadata', 'text')
    .addColumn('storage_id', 'text')
    .addColumn('attachments', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('assets_project_created')
    .on('assets')
    .columns(['project_id', 'deleted', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('assets_project_external').on('assets').columns(['project_id', 'external_id']).execute();

  await db.schema
    .createTable('asset_batches')
    .addColumn('asset_id', 'text', (c) => c.notNull().references('assets.id'))
    .addColumn('batch_id', 'text', (c) => c.notNull().references('batches.id'))
    .addPrimaryKeyConstraint('asset_batches_pk', ['asset_id', 'batch_id'])
    .execute();
  await db.schema.createIndex('asset_batches_batch').on('asset_batches').columns(['batch_id', 'asset_id']).execute();

  await db.schema
    .createTable('tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
    .addColumn('asset_id', 'text', (c) => c.notNull().references('assets.id'))
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('stage_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('assignee', 'text')
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('review_status', 'text')
    .addColumn('duration', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_duration', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_issues_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_pre_labeled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('default'))
    .addColumn('parent_task_id', 'text')
    .addColumn('consensus_id', 'text')
    .addColumn('consensus_score', 'real')
    .addColumn('brush_data_url', 'text')
    .addColumn('medical_brush_data_url', 'text')
    .addColumn('stage_entered_at', 'text', (c) => c.notNull())
    .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('completed_by', 'text')
    .execute();
  // Listing pages in creation order; /next walks a stage by priority, then age.
  await db.schema
    .createIndex('tasks_project_created')
    .on('tasks')
    .columns(['project_id', 'deleted', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('tasks_stage_queue')
    .on('tasks')
    .columns(['project_id', 'stage_id', 'deleted', 'priority', 'created_at'])
    .execute();
  await db.schema.createIndex('tasks_asset').on('tasks').column('asset_id').execute();
  await db.schema.createIndex('tasks_parent').on('tasks').column('parent_task_id').execute();

  await db.schema
    .createTable('task_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('asset_id', 'text', (c) => c.notNull())
    .addColumn('stage_id', 'text', (c) => c.notNull())
    .addColumn('stage_name', 'text', (c) => c.notNull())
    .addColumn('stage_type', 'text', (c) => c.notNull())
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('duration', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('completed_at', 'text', (c) => c.notNull())
    .addColumn('completed_by', 'text')
    .addColumn('review_status', 'text')
    .addColumn('is_skipped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('consensus_id', 'text')
    .addColumn('trigger', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('task_history_task')
    .on('task_history')
    .columns(['task_id', 'completed_at', 'id'])
    .execute();

  await db.schema
    .createTable('issues')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id'))
    .addColumn('asset_id', 'text', (c) => c.notNull())
    .addColumn('stage_id', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('position', 'text')
    .addColumn('page', 'integer')
    .addColumn('object_id', 'text')
    .addColumn('error_codes', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('comments', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('issues_project').on('issues').columns(['project_id', 'deleted', 'created_at']).execute();
  await db.schema.createIndex('issues_task').on('issues').columns(['task_id', 'status']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['issues', 'task_history', 'tasks', 'asset_batches', 'assets']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
