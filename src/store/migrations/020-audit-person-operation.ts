import type { Kysely } from 'kysely';

/*
 * GET /audit filtered by a person and an operation together: an (organization, user, operation,
 * id) index reads the page backwards from its cursor like the single filters do. Without it,
 * PostgreSQL read the person's index and checked the operation on every row, so a pair that
 * matches nothing read all of that person's records.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('audit_log_user_operation')
    .on('audit_log')
    .columns(['organization_id', 'user_id', 'operation', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_log_user_operation').ifExists().execute();
}
