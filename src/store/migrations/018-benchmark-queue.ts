import type { Kysely } from 'kysely';

/*
 * The benchmark each labeler is working (handed out by /next, one at a time per project: the
 * benchmark task itself is never assigned, so many labelers can work it), and when a Manager
 * last let a labeler stopped by the benchmark cutoff continue (their average counts from then).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('benchmark_handouts')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('labeler', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('stage_id', 'text', (c) => c.notNull())
    .addColumn('handed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('benchmark_handouts_pk', ['project_id', 'labeler'])
    .execute();
  await db.schema
    .createTable('benchmark_resumes')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('labeler', 'text', (c) => c.notNull())
    .addColumn('resumed_at', 'text', (c) => c.notNull())
    .addColumn('resumed_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('benchmark_resumes_pk', ['project_id', 'labeler'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('benchmark_resumes').ifExists().execute();
  await db.schema.dropTable('benchmark_handouts').ifExists().execute();
}
