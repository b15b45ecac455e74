import { type Kysely, sql } from 'kysely';

/*
 * The work queue's counts (GET /project/{id}/queue) and /next's own look-ups, without walking a
 * stage's rows to read each one's assignee (no index held the column):
 * - tasks_stage_free: the live tasks nobody holds, per stage, in /next's order. The queue counts
 *   them (up to its cap) and /next picks from them; a claim takes a task out of it.
 * - tasks_stage_held: the live tasks someone holds, per stage and person: what /next answers
 *   first and the queue's "assigned to you". Small: people hold a task or a few at a time.
 * Both are partial; the queries write `deleted = 0` as a literal so both engines match them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX tasks_stage_free ON tasks (project_id, stage_id, priority, created_at, id)
    WHERE deleted = 0 AND assignee IS NULL`.execute(db);
  await sql`CREATE INDEX tasks_stage_held ON tasks (project_id, stage_id, assignee)
    WHERE deleted = 0 AND assignee IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_stage_held').ifExists().execute();
  await db.schema.dropIndex('tasks_stage_free').ifExists().execute();
}
