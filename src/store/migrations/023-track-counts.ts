import { type Kysely, sql } from 'kysely';
import { answerTriggersSqlite, pgFactsFunction, type ToolCounting } from './008-answer-counts.js';
import { backfillAnswerCounts, isPostgres } from './008-metric-figures.js';

/*
 * AnswerDistribution counts an object of a video once. A video's object is stored as one `tools`
 * entry per keyframe (the same objectId, `page` the frame); counted per entry, a car with ten
 * keyframes was ten cars. The triggers (SQLite) or the facts function they call (PostgreSQL) now
 * count entries carrying `page` once per (schemaId, objectId), and the counts are made again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await recount(db, 'tracks');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await recount(db, 'entries');
}

async function recount(db: Kysely<unknown>, tools: ToolCounting): Promise<void> {
  if (isPostgres(db)) {
    // In the migrator's transaction: writers wait on the function's replacement until commit.
    await sql.raw(pgFactsFunction(tools)).execute(db);
    await sql`DELETE FROM answer_counts`.execute(db);
    await backfillAnswerCounts(db, tools);
    return;
  }
  await db.transaction().execute(async (trx) => {
    for (const name of ['insert', 'update', 'delete']) await sql.raw(`DROP TRIGGER answer_counts_${name}`).execute(trx);
    await answerTriggersSqlite(trx, tools);
    await sql`DELETE FROM answer_counts`.execute(trx);
    await backfillAnswerCounts(trx, tools);
  });
}
