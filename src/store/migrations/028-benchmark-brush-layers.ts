import type { Kysely } from 'kysely';

/*
 * Brush layers of benchmarks: the reference keeps the layer the task had when it was marked (a
 * link to the file store, where a layer is never overwritten: each save is a new file), and each
 * submission the layer it was submitted with, so brush classes are scored by IoU against the
 * reference's layer and the submission can be looked at later.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('benchmark_references').addColumn('brush_data_url', 'text').execute();
  await db.schema.alterTable('benchmark_submissions').addColumn('brush_data_url', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('benchmark_submissions').dropColumn('brush_data_url').execute();
  await db.schema.alterTable('benchmark_references').dropColumn('brush_data_url').execute();
}
