import type { Kysely } from 'kysely';

/*
 * Brush layers of videos, one per frame: the task keeps the list of its frames' layers as JSON
 * `[{page, url}]` (long-lived links of the file store, in frame order), null when no frame has
 * one. `brush_data_url` keeps frame 0's layer, so what reads one layer per task reads frame 0.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('brush_frames', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('brush_frames').execute();
}
