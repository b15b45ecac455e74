import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { underSqliteWriteLock } from './write-lock.js';

/*
 * Live (not deleted) tasks per project, kept by the database itself so that no write path, now
 * or later, can forget it: an unfiltered task listing answers its `total` from here instead of
 * counting a million rows. A project's figure is the SUM of its rows in `task_counts`.
 *
 * - SQLite: one row per project, moved by row triggers. Writers are serialised anyway, so the
 *   single row costs no concurrency.
 * - PostgreSQL: statement triggers with transition tables append one delta row per statement
 *   (an import of 50,000 tasks in 22 chunks adds 22 rows). Writers only ever INSERT, so they
 *   never wait for each other on a shared counter row: a hot row locked in the middle of an
 *   import, a consensus round or a bulk move would serialise those and could close a deadlock
 *   cycle with the task rows they lock. Readers fold the deltas back into one row
 *   (task-count.repository.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await upPostgres(db);
  else await underSqliteWriteLock(db, () => createSqlite(db));
}

async function createSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE task_counts (project_id TEXT PRIMARY KEY, live INTEGER NOT NULL) WITHOUT ROWID`.execute(db);
  // SQLite needs a WHERE in INSERT ... SELECT ... ON CONFLICT to parse the upsert.
  const add = (project: string, delta: string, when = 'true') =>
    `INSERT INTO task_counts (project_id, live) SELECT ${project}, ${delta} WHERE ${when}
       ON CONFLICT (project_id) DO UPDATE SET live = live + excluded.live;`;
  await sql
    .raw(
      `CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks WHEN NEW.deleted = 0
       BEGIN ${add('NEW.project_id', '1')} END`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER task_counts_delete AFTER DELETE ON tasks WHEN OLD.deleted = 0
       BEGIN ${add('OLD.project_id', '-1')} END`,
    )
    .execute(db);
  // Routing writes every column of a moved task: the WHEN clause keeps ordinary moves free.
  await sql
    .raw(
      `CREATE TRIGGER task_counts_update AFTER UPDATE OF deleted, project_id ON tasks
       WHEN OLD.project_id IS NOT NEW.project_id OR (OLD.deleted = 0) IS NOT (NEW.deleted = 0)
       BEGIN
         ${add('OLD.project_id', '-1', 'OLD.deleted = 0')}
         ${add('NEW.project_id', '1', 'NEW.deleted = 0')}
       END`,
    )
    .execute(db);
  await sql`INSERT INTO task_counts (project_id, live)
            SELECT project_id, count(*) FROM tasks WHERE deleted = 0 GROUP BY project_id`.execute(db);
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE task_counts (project_id TEXT NOT NULL, live BIGINT NOT NULL)`.execute(db);
  await sql`CREATE INDEX task_counts_project ON task_counts (project_id)`.execute(db);
  // One function for the three triggers; the search_path is pinned so the trigger finds its
  // table whatever the writing session's path is. Statements that change no count add nothing.
  await sql`
    CREATE FUNCTION task_counts_apply() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO task_counts (project_id, live)
          SELECT project_id, count(*) FROM new_rows WHERE deleted = 0 GROUP BY project_id;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO task_counts (project_id, live)
          SELECT project_id, -count(*) FROM old_rows WHERE deleted = 0 GROUP BY project_id;
      ELSE
        INSERT INTO task_counts (project_id, live)
          SELECT project_id, sum(d) FROM (
            SELECT project_id, 1 AS d FROM new_rows WHERE deleted = 0
            UNION ALL
            SELECT project_id, -1 AS d FROM old_rows WHERE deleted = 0
          ) AS changes
          GROUP BY project_id HAVING sum(d) <> 0;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  // PostgreSQL allows transition tables on single-event triggers only: three triggers.
  await sql`CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION task_counts_apply()`.execute(db);
  await sql`CREATE TRIGGER task_counts_update AFTER UPDATE ON tasks
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION task_counts_apply()`.execute(db);
  await sql`CREATE TRIGGER task_counts_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION task_counts_apply()`.execute(db);
  // The migration runs in one transaction, and CREATE TRIGGER locks out task writes until it
  // commits: the count below sees every committed task and nothing can slip in before commit.
  await sql`INSERT INTO task_counts (project_id, live)
            SELECT project_id, count(*) FROM tasks WHERE deleted = 0 GROUP BY project_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['task_counts_insert', 'task_counts_update', 'task_counts_delete']) {
    if (db.getExecutor().adapter instanceof PostgresAdapter)
      await sql.raw(`DROP TRIGGER IF EXISTS ${t} ON tasks`).execute(db);
    else await sql.raw(`DROP TRIGGER IF EXISTS ${t}`).execute(db);
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter)
    await sql`DROP FUNCTION IF EXISTS task_counts_apply()`.execute(db);
  await db.schema.dropTable('task_counts').ifExists().execute();
}
