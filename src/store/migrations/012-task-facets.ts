import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { createTriggerFunction, dropKeptCounts } from './kept-counts.js';
import { underSqliteWriteLock } from './write-lock.js';

/*
 * Live tasks counted by what the console filters on most: stage, status and type, over the
 * whole project (`batch_id` '') and over each batch of the task's asset. A listing filtered by
 * stage, status or batch answers its `total` from here instead of counting up to a million
 * rows, and so do the workflow's live stage counts and the overview's status chart. Kept by the
 * database as migration 007 keeps the project's count, and for the same reasons:
 *
 * - SQLite: one row per key, moved by row triggers on tasks and asset_batches.
 * - PostgreSQL: statement triggers append delta rows (writers never wait on a shared counter
 *   row); readers and the job worker fold a key's deltas back into one row
 *   (task-facet.repository.ts). A key's figure is the SUM of its rows on both engines.
 *
 * A task in two batches is counted once in '' and once in each batch, so a batch's figure is
 * exact; a sum over several batches is not (the reader counts those instead).
 */

const KEY = 'project_id, batch_id, stage_id, status, type';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A listing filtered by stage pages in creation order on the index; without it a deep page of
  // a small stage walked every task's row to find its own (164 ms at 1,000,000 tasks).
  await db.schema
    .createIndex('tasks_project_stage_created')
    .on('tasks')
    .columns(['project_id', 'deleted', 'stage_id', 'created_at', 'id'])
    .execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) await upPostgres(db);
  // As 007: under the write lock, so the backfill meets the triggers exactly.
  else await underSqliteWriteLock(db, () => createSqlite(db));
}

async function createSqlite(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE task_facets (project_id TEXT NOT NULL, batch_id TEXT NOT NULL, stage_id TEXT NOT NULL,
         status TEXT NOT NULL, type TEXT NOT NULL, live INTEGER NOT NULL, PRIMARY KEY (${KEY})) WITHOUT ROWID`,
    )
    .execute(db);
  const upsert = `ON CONFLICT (${KEY}) DO UPDATE SET live = live + excluded.live;`;
  /** The task `t` (NEW or OLD) counted `delta` in '' and in each batch of its asset. */
  const add = (t: string, delta: string, when: string) => `
    INSERT INTO task_facets (${KEY}, live)
      SELECT ${t}.project_id, '', ${t}.stage_id, ${t}.status, ${t}.type, ${delta} WHERE ${when} ${upsert}
    INSERT INTO task_facets (${KEY}, live)
      SELECT ${t}.project_id, ab.batch_id, ${t}.stage_id, ${t}.status, ${t}.type, ${delta}
      FROM asset_batches AS ab WHERE ab.asset_id = ${t}.asset_id AND ${when} ${upsert}`;
  const triggers = [
    `CREATE TRIGGER task_facets_insert AFTER INSERT ON tasks WHEN NEW.deleted = 0
     BEGIN ${add('NEW', '1', 'true')} END`,
    `CREATE TRIGGER task_facets_delete AFTER DELETE ON tasks WHEN OLD.deleted = 0
     BEGIN ${add('OLD', '-1', 'true')} END`,
    // Every move writes stage_id: the WHEN clause keeps updates that change no key free.
    `CREATE TRIGGER task_facets_update AFTER UPDATE OF deleted, project_id, stage_id, status, type, asset_id ON tasks
     WHEN (OLD.deleted = 0) IS NOT (NEW.deleted = 0) OR OLD.project_id IS NOT NEW.project_id
       OR OLD.stage_id IS NOT NEW.stage_id OR OLD.status IS NOT NEW.status OR OLD.type IS NOT NEW.type
       OR OLD.asset_id IS NOT NEW.asset_id
     BEGIN ${add('OLD', '-1', 'OLD.deleted = 0')} ${add('NEW', '1', 'NEW.deleted = 0')} END`,
    // An asset joining or leaving a batch carries its live tasks with it.
    `CREATE TRIGGER task_facets_batch_insert AFTER INSERT ON asset_batches BEGIN
       INSERT INTO task_facets (${KEY}, live)
         SELECT t.project_id, NEW.batch_id, t.stage_id, t.status, t.type, 1
         FROM tasks AS t WHERE t.asset_id = NEW.asset_id AND t.deleted = 0 ${upsert} END`,
    `CREATE TRIGGER task_facets_batch_delete AFTER DELETE ON asset_batches BEGIN
       INSERT INTO task_facets (${KEY}, live)
         SELECT t.project_id, OLD.batch_id, t.stage_id, t.status, t.type, -1
         FROM tasks AS t WHERE t.asset_id = OLD.asset_id AND t.deleted = 0 ${upsert} END`,
  ];
  for (const t of triggers) await sql.raw(t).execute(db);
  await sql.raw(backfill()).execute(db);
}

/** Counts of every live task as it stands, in '' and per batch. */
function backfill(): string {
  return `INSERT INTO task_facets (${KEY}, live)
    SELECT project_id, '', stage_id, status, type, count(*) FROM tasks WHERE deleted = 0
      GROUP BY project_id, stage_id, status, type
    UNION ALL
    SELECT t.project_id, ab.batch_id, t.stage_id, t.status, t.type, count(*)
      FROM tasks AS t JOIN asset_batches AS ab ON ab.asset_id = t.asset_id WHERE t.deleted = 0
      GROUP BY t.project_id, ab.batch_id, t.stage_id, t.status, t.type`;
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE task_facets (project_id TEXT NOT NULL, batch_id TEXT NOT NULL, stage_id TEXT NOT NULL,
         status TEXT NOT NULL, type TEXT NOT NULL, live BIGINT NOT NULL)`,
    )
    .execute(db);
  await sql`CREATE INDEX task_facets_key ON task_facets (project_id, batch_id, stage_id, status)`.execute(db);
  /** The rows of a transition table counted `sign` in '' and in each batch of their asset. */
  const counted = (rows: string, sign: string) => `
    SELECT project_id, '' AS batch_id, stage_id, status, type, ${sign} AS d FROM ${rows} WHERE deleted = 0
    UNION ALL
    SELECT r.project_id, ab.batch_id, r.stage_id, r.status, r.type, ${sign}
      FROM ${rows} AS r JOIN asset_batches AS ab ON ab.asset_id = r.asset_id WHERE r.deleted = 0`;
  const append = (changes: string) => `
    INSERT INTO task_facets (${KEY}, live)
      SELECT ${KEY}, sum(d) FROM (${changes}) AS changes GROUP BY ${KEY} HAVING sum(d) <> 0;`;
  const triggerFunction = (name: string, body: string) => createTriggerFunction(db, name, body);
  await triggerFunction(
    'task_facets_apply',
    `IF TG_OP = 'INSERT' THEN ${append(counted('new_rows', '1'))}
     ELSIF TG_OP = 'DELETE' THEN ${append(counted('old_rows', '-1'))}
     ELSE ${append(`${counted('new_rows', '1')} UNION ALL ${counted('old_rows', '-1')}`)}
     END IF;`,
  );
  const batchChange = (rows: string, sign: string) => `
    SELECT t.project_id, m.batch_id, t.stage_id, t.status, t.type, ${sign} AS d
      FROM ${rows} AS m JOIN tasks AS t ON t.asset_id = m.asset_id WHERE t.deleted = 0`;
  await triggerFunction(
    'task_facets_batch_apply',
    `IF TG_OP = 'INSERT' THEN ${append(batchChange('new_rows', '1'))}
     ELSE ${append(batchChange('old_rows', '-1'))}
     END IF;`,
  );
  const triggers = [
    `CREATE TRIGGER task_facets_insert AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows
     FOR EACH STATEMENT EXECUTE FUNCTION task_facets_apply()`,
    `CREATE TRIGGER task_facets_update AFTER UPDATE ON tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
     FOR EACH STATEMENT EXECUTE FUNCTION task_facets_apply()`,
    `CREATE TRIGGER task_facets_delete AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows
     FOR EACH STATEMENT EXECUTE FUNCTION task_facets_apply()`,
    `CREATE TRIGGER task_facets_batch_insert AFTER INSERT ON asset_batches REFERENCING NEW TABLE AS new_rows
     FOR EACH STATEMENT EXECUTE FUNCTION task_facets_batch_apply()`,
    `CREATE TRIGGER task_facets_batch_delete AFTER DELETE ON asset_batches REFERENCING OLD TABLE AS old_rows
     FOR EACH STATEMENT EXECUTE FUNCTION task_facets_batch_apply()`,
  ];
  for (const t of triggers) await sql.raw(t).execute(db);
  // In the migration's transaction: CREATE TRIGGER has locked out writers of both tables.
  await sql.raw(backfill()).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropKeptCounts(
    db,
    'task_facets',
    {
      task_facets_insert: 'tasks',
      task_facets_update: 'tasks',
      task_facets_delete: 'tasks',
      task_facets_batch_insert: 'asset_batches',
      task_facets_batch_delete: 'asset_batches',
    },
    ['task_facets_apply', 'task_facets_batch_apply'],
  );
  await db.schema.dropIndex('tasks_project_stage_created').ifExists().execute();
}
