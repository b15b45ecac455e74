import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * The job queue's indexes hold only the jobs that can still run. The index of 001 on (status,
 * run_at) kept an entry for every job ever done, rewritten twice per job (claimed, done); these
 * partial indexes take a job in when it is queued or leased and let it go when it ends, so they
 * stay the size of the live queue whatever the history:
 * - jobs_queued: the claim's walk over due jobs in run_at order, stopping at its limit;
 * - jobs_leased: the search for leases that lapsed (a dead worker's jobs);
 * - jobs_failed: the newest failures first.
 * On PostgreSQL the queue table is rewritten at the pace of the deliveries: autovacuum looks at
 * it after 1 % of its rows changed (instead of 20 %, and 10 % for statistics), so dead entries
 * do not pile up in front of the claim's walk and the planner soon knows how big the queue is.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('jobs_queued')
    .on('jobs')
    .column('run_at')
    .where(sql.ref('status'), '=', 'queued')
    .execute();
  await db.schema
    .createIndex('jobs_leased')
    .on('jobs')
    .column('lease_until')
    .where(sql.ref('status'), '=', 'running')
    .execute();
  await db.schema
    .createIndex('jobs_failed')
    .on('jobs')
    .column('updated_at')
    .where(sql.ref('status'), '=', 'failed')
    .execute();
  await db.schema.dropIndex('jobs_due').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`ALTER TABLE jobs SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.01)`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`ALTER TABLE jobs RESET (autovacuum_vacuum_scale_factor, autovacuum_analyze_scale_factor)`.execute(db);
  }
  await db.schema.createIndex('jobs_due').on('jobs').columns(['status', 'run_at']).execute();
  await db.schema.dropIndex('jobs_failed').ifExists().execute();
  await db.schema.dropIndex('jobs_leased').ifExists().execute();
  await db.schema.dropIndex('jobs_queued').ifExists().execute();
}
