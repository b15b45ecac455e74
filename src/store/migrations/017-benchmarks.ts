import type { Kysely } from 'kysely';

/*
 * Benchmarks: a task a Manager marked (tasks.type 'benchmark') keeps its reference answer here,
 * apart from the task, so no task view can carry it to a Labeler. Each time a labeler works a
 * benchmark, the scored answer is kept as one submission; the benchmark task itself never moves.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('benchmark_references')
    .addColumn('task_id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    /** JSON TaskAnswer */
    .addColumn('answer', 'text', (c) => c.notNull())
    /** 'answer' (the task's answer when marked), 'given' (sent with the request) or 'prelabels'. */
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('benchmark_references_project').on('benchmark_references').column('project_id').execute();
  await db.schema
    .createTable('benchmark_submissions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('labeler', 'text', (c) => c.notNull())
    /** JSON TaskAnswer as submitted */
    .addColumn('answer', 'text', (c) => c.notNull())
    /** 0 to 100 */
    .addColumn('score', 'real', (c) => c.notNull())
    /** JSON array of per-object and per-question scores */
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // A labeler's submissions in time order (their average, the cutoff, the Quality page), and
  // "has this labeler done this benchmark" (the queue).
  await db.schema
    .createIndex('benchmark_submissions_labeler')
    .on('benchmark_submissions')
    .columns(['project_id', 'labeler', 'created_at'])
    .execute();
  await db.schema
    .createIndex('benchmark_submissions_task')
    .on('benchmark_submissions')
    .columns(['task_id', 'labeler'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('benchmark_submissions').ifExists().execute();
  await db.schema.dropTable('benchmark_references').ifExists().execute();
}
