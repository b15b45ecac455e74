import type { Kysely } from 'kysely';

/*
 * An asset made of several images (`dataset: [url, ...]` on import): its pages' addresses in page
 * order, kept as the JSON text of the list; null for an asset of one file.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('assets').addColumn('dataset', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('assets').dropColumn('dataset').execute();
}
