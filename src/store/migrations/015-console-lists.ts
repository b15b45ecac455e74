import type { Kysely } from 'kysely';

/*
 * What the console's lists need of the store:
 * - projects.archived_at: when a Manager archived the project (null while it is active). The
 *   contract has no archive; ours hides a project from the console's list without deleting it.
 * - export_records: the exports requested per project (GET /v2/project/{id}/exports), so the
 *   history of exports is the project's, not one browser's. Only the newest 50 per project are
 *   kept; the files themselves live as long as their links (docs/exports-and-metrics.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('archived_at', 'text').execute();
  await db.schema
    .createTable('export_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    /** JSON object: the query's narrowing parameters as sent (stage, batches, status...). */
    .addColumn('filters', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('ms', 'integer', (c) => c.notNull())
    /** The local zip's file name, or null when the zip went to the project's storage. */
    .addColumn('file_name', 'text')
    /** JSON {storageId, bucket, key} of a zip in the project's storage; null for a local one. */
    .addColumn('storage_ref', 'text')
    .execute();
  await db.schema.createIndex('export_records_project').on('export_records').columns(['project_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('export_records').ifExists().execute();
  await db.schema.alterTable('projects').dropColumn('archived_at').execute();
}
