import type { Kysely } from 'kysely';

/**
 * Plugins of an organization and the bookkeeping of Plugin stages. A call itself is a job (the
 * jobs table); `plugin_calls` keeps what a plugin's answer must be matched against (the session)
 * and what feeds the stage warnings; `plugin_logs` keeps the lines a plugin posts and one line
 * per call attempt. Written against Kysely<unknown>: a migration must not depend on today's
 * table types.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('plugins')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    // Sealed (AES-256-GCM) secret sent as the Secret header; null once the plugin is deleted.
    .addColumn('secret', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema
    .createIndex('plugins_org_created')
    .on('plugins')
    .columns(['organization_id', 'deleted', 'created_at'])
    .execute();

  await db.schema
    .createTable('plugin_calls')
    // The session id sent to the plugin; the same as the call's job id, stable across retries.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('stage_id', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('plugin_id', 'text', (c) => c.notNull())
    // The task's stage_entered_at when the call was queued: a later visit is not this call's.
    .addColumn('entered_at', 'text', (c) => c.notNull())
    // sending | waiting | answered | failed | superseded
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('plugin_calls_stage')
    .on('plugin_calls')
    .columns(['project_id', 'stage_id', 'status'])
    .execute();
  await db.schema.createIndex('plugin_calls_task').on('plugin_calls').columns(['task_id', 'stage_id']).execute();

  await db.schema
    .createTable('plugin_logs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('stage_id', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text', (c) => c.notNull())
    // plugin (posted by the plugin) | annotary (one line per call attempt)
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('plugin_logs_session')
    .on('plugin_logs')
    .columns(['session_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('plugin_logs_project')
    .on('plugin_logs')
    .columns(['project_id', 'stage_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['plugin_logs', 'plugin_calls', 'plugins']) await db.schema.dropTable(t).ifExists().execute();
}
