import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * Pieces shared by the migrations whose counts the database keeps with triggers (012, 026):
 * PostgreSQL trigger functions and taking the triggers, functions and table away again.
 */

/** A PostgreSQL trigger function (search_path pinned, so it finds its table whatever the session's). */
export async function createTriggerFunction(db: Kysely<unknown>, name: string, body: string): Promise<void> {
  await sql
    .raw(
      `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
         BEGIN ${body} RETURN NULL; END $$`,
    )
    .execute(db);
}

/** Drops the triggers (name: the table it is on), PostgreSQL's trigger functions and the table. */
export async function dropKeptCounts(
  db: Kysely<unknown>,
  table: string,
  triggers: Record<string, string>,
  functions: string[],
): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const [name, on] of Object.entries(triggers)) {
    await sql.raw(pg ? `DROP TRIGGER IF EXISTS ${name} ON ${on}` : `DROP TRIGGER IF EXISTS ${name}`).execute(db);
  }
  if (pg) for (const f of functions) await sql.raw(`DROP FUNCTION IF EXISTS ${f}()`).execute(db);
  await db.schema.dropTable(table).ifExists().execute();
}
