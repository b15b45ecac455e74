import type { Kysely } from 'kysely';

/*
 * The Quality page's measures:
 * - consensus_agreements: what each decided consensus round measured, per ontology item. A
 *   box, rotated-box or polygon tool: one row, `value` the mean pairwise IoU of the copies'
 *   objects. A classification question: one row per pair of copies (earlier copy `answer_a`,
 *   later `answer_b`, '' for unanswered), `value` 1 when they gave the same answer, else 0; the
 *   page reads Cohen's kappa from the pairs. The covering index answers the page's GROUP BY
 *   over a time range without reading the table.
 * - a covering index of benchmark submissions by (project_id, created_at), so each labeler's
 *   scores over time are read from the index alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('consensus_agreements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('parent_task_id', 'text', (c) => c.notNull())
    .addColumn('asset_id', 'text', (c) => c.notNull())
    .addColumn('consensus_id', 'text', (c) => c.notNull())
    .addColumn('schema_id', 'text', (c) => c.notNull())
    /** 'tool' or 'classification' */
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('answer_a', 'text', (c) => c.notNull())
    .addColumn('answer_b', 'text', (c) => c.notNull())
    .addColumn('value', 'real', (c) => c.notNull())
    .addColumn('decided_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('consensus_agreements_project_decided')
    .on('consensus_agreements')
    .columns(['project_id', 'decided_at', 'schema_id', 'kind', 'answer_a', 'answer_b', 'value', 'asset_id'])
    .execute();
  await db.schema
    .createIndex('benchmark_submissions_project_created')
    .on('benchmark_submissions')
    .columns(['project_id', 'created_at', 'labeler', 'score', 'task_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('benchmark_submissions_project_created').ifExists().execute();
  await db.schema.dropTable('consensus_agreements').ifExists().execute();
}
