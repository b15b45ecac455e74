import type { Kysely } from 'kysely';

/*
 * What reading an asset's file header found wrong (an address that answers 404 or a web page, a
 * file that is not what its name says, a server that sends no end): kept apart from the asset's
 * `metadata`, which is the client's, and answered as `mediaWarning`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('assets').addColumn('media_warning', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('assets').dropColumn('media_warning').execute();
}
