import { sql, type Kysely } from 'kysely';

/*
 * The work queue's counts (GET /project/{id}/queue) and /next's own look-ups read a stage's
 * tasks by assignee; no index held the column, so both read every task row of the stage to find
 * the free ones (or the caller's). tasks_stage_assignee leads with the stage and the assignee
 * (NULL: free), then /next's order (priority, highest first, then the oldest):
 * - the queue's capped count of free tasks reads at most its cap of entries;
 * - its "assigned to you" and /next's "a task you hold comes first" are one seek;
 * - /next's pick of a free task walks the index in order instead of sorting the stage.
 * A plain index, not a partial one (WHERE assignee IS NULL): SQLite's planner preferred the
 * wider (project_id, deleted, stage_id) index of 012 over a partial one with fewer key columns.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX tasks_stage_assignee
    ON tasks (project_id, stage_id, deleted, assignee, priority DESC, created_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_stage_assignee').ifExists().execute();
}
