import type { Kysely } from 'kysely';

/*
 * A plugin that answers interactive requests (the editor's Assist): the address those requests
 * are POSTed to, or null for a plugin that only answers Plugin stages.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('plugins').addColumn('assist_url', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('plugins').dropColumn('assist_url').execute();
}
