import { type Kysely, sql } from 'kysely';

/**
 * Runs a SQLite migration step under the write lock for its whole length. Kysely runs SQLite
 * migrations outside a transaction; a step that creates triggers and backfills what they keep
 * must not let another process (which may share the file) write in between, and a failure must
 * leave nothing half-made.
 */
export async function underSqliteWriteLock(db: Kysely<unknown>, step: () => Promise<void>): Promise<void> {
  await sql`BEGIN IMMEDIATE`.execute(db);
  try {
    await step();
    await sql`COMMIT`.execute(db);
  } catch (err) {
    await sql`ROLLBACK`.execute(db);
    throw err;
  }
}
