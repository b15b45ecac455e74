import { sql } from 'kysely';
import type { Engine, Executor } from '../db.js';

/*
 * AnswerDistribution reads `answer_counts`, which triggers on tasks keep exact as answers are
 * written (migration 008, where the rules of what counts are spelled out): a few rows per
 * classification value and tool, never the answers themselves. Zero rows are deleted by the
 * triggers; `n > 0` is the reads' guard all the same.
 */

/** At most this many distinct values per classification come back (the most frequent). */
export const MAX_VALUES_PER_CLASSIFICATION = 100;

export interface AnswerValueRow {
  sid: string;
  v: string;
  n: number;
  /** Answers of this classification, all values together. */
  total: number;
  distinct_values: number;
}

/** The most frequent values of each classification, by count then value, with totals. */
export async function classificationAnswerCounts(
  db: Executor,
  engine: Engine,
  projectId: string,
): Promise<AnswerValueRow[]> {
  // Ties are broken by the value in byte order on both engines (PostgreSQL: collation "C").
  const byValue = engine === 'sqlite' ? sql`value` : sql`value collate "C"`;
  const { rows } = await sql<AnswerValueRow>`
    select sid, v, n, total, distinct_values from (
      select schema_id as sid, value as v, n,
        sum(n) over (partition by schema_id) as total,
        count(*) over (partition by schema_id) as distinct_values,
        row_number() over (partition by schema_id order by n desc, ${byValue}) as rank
      from answer_counts
      where project_id = ${projectId} and kind = 'classification' and n > 0
    ) ranked
    where rank <= ${MAX_VALUES_PER_CLASSIFICATION}
    order by sid, rank`.execute(db);
  return rows.map((r) => ({
    ...r,
    n: Number(r.n),
    total: Number(r.total),
    distinct_values: Number(r.distinct_values),
  }));
}

/** Objects per tool schemaId in current task answers. */
export async function toolObjectCounts(db: Executor, projectId: string) {
  const rows = await db
    .selectFrom('answer_counts')
    .select(['schema_id', 'n'])
    .where('project_id', '=', projectId)
    .where('kind', '=', 'tool')
    .where('n', '>', 0)
    .execute();
  return rows.map((r) => ({ sid: r.schema_id, n: Number(r.n) }));
}
