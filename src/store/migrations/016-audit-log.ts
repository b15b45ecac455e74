import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * The audit log: one row per change made through the API, the console or the CLI, written in the
 * transaction of the change (src/services/audit/). Rows are never updated: a trigger refuses any
 * UPDATE, whoever sends it; the only deletes are the retention sweep's (oldest first).
 *
 * Ids are time-ordered (seconds first), so a time range is an id range and every list reads one
 * of the (organization, filter, id) indexes backwards from its cursor.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    /** Null for a failed sign-in with an unknown e-mail. */
    .addColumn('user_id', 'text')
    /** The API key's id, or `session:<id>`; null for a sign-in or a CLI change. */
    .addColumn('actor', 'text')
    .addColumn('address', 'text')
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    /** JSON array of the names of the fields that changed (never their values). */
    .addColumn('fields', 'text', (c) => c.notNull())
    .execute();
  for (const [name, column] of [
    ['audit_log_org', undefined],
    ['audit_log_user', 'user_id'],
    ['audit_log_operation', 'operation'],
    ['audit_log_target', 'target_id'],
  ] as const) {
    const columns = column ? ['organization_id', column, 'id'] : ['organization_id', 'id'];
    await db.schema.createIndex(name).on('audit_log').columns(columns).execute();
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql
      .raw(
        `CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'audit records are append-only'; END $$`,
      )
      .execute(db);
    await sql`CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`.execute(
      db,
    );
  } else {
    await sql`CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').ifExists().execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`DROP FUNCTION IF EXISTS audit_log_append_only()`.execute(db);
  }
}
