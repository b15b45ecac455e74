import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * A change counter for what an API key resolves to (src/services/identity/principal-cache.ts):
 * one row whose `version` the database itself moves, by triggers, whenever a key, a user or an
 * organization is updated or deleted, whoever does it (this server, the CLI beside it, another
 * process on the same SQLite file, a hand edit). A process keeps resolved keys only while the
 * counter reads as it did when it kept them. Inserts need no trigger: a new row cannot make a
 * kept key wrong (only valid keys are kept, and a new key revokes the old one by an update).
 *
 * On PostgreSQL the triggers (one per statement) also send a NOTIFY on `annotary_principals`,
 * delivered when the change commits.
 */

const TABLES = ['api_keys', 'users', 'organizations'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE principal_changes (id INTEGER PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL)`.execute(
    db,
  );
  await sql`INSERT INTO principal_changes (id, version) VALUES (1, 0)`.execute(db);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql
      .raw(
        `CREATE FUNCTION principal_changes_bump() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
         BEGIN
           UPDATE principal_changes SET version = version + 1 WHERE id = 1;
           PERFORM pg_notify('annotary_principals', '');
           RETURN NULL;
         END $$`,
      )
      .execute(db);
    for (const table of TABLES) {
      await sql
        .raw(
          `CREATE TRIGGER principal_changes_${table} AFTER UPDATE OR DELETE ON ${table}
           FOR EACH STATEMENT EXECUTE FUNCTION principal_changes_bump()`,
        )
        .execute(db);
    }
    return;
  }
  for (const table of TABLES) {
    for (const event of ['update', 'delete']) {
      await sql
        .raw(
          `CREATE TRIGGER principal_changes_${table}_${event} AFTER ${event.toUpperCase()} ON ${table}
           BEGIN UPDATE principal_changes SET version = version + 1 WHERE id = 1; END`,
        )
        .execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const table of TABLES)
      await sql.raw(`DROP TRIGGER IF EXISTS principal_changes_${table} ON ${table}`).execute(db);
    await sql`DROP FUNCTION IF EXISTS principal_changes_bump()`.execute(db);
  } else {
    for (const table of TABLES) {
      for (const event of ['update', 'delete']) {
        await sql.raw(`DROP TRIGGER IF EXISTS principal_changes_${table}_${event}`).execute(db);
      }
    }
  }
  await db.schema.dropTable('principal_changes').ifExists().execute();
}
