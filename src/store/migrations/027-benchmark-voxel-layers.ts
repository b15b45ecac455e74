import type { Kysely } from 'kysely';

/*
 * Benchmarks of volumes: a reference keeps the voxel layer (`medicalBrushDataUrl`) it was marked
 * with, and a submission the layer it was scored with, so the per-class Dice of a submission can
 * be worked out again; null where there is none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('benchmark_references').addColumn('medical_brush_data_url', 'text').execute();
  await db.schema.alterTable('benchmark_submissions').addColumn('medical_brush_data_url', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('benchmark_submissions').dropColumn('medical_brush_data_url').execute();
  await db.schema.alterTable('benchmark_references').dropColumn('medical_brush_data_url').execute();
}
