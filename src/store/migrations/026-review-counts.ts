import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { createTriggerFunction, dropKeptCounts } from './kept-counts.js';
import { underSqliteWriteLock } from './write-lock.js';

/*
 * Review decisions (task history entries of trigger 'review' with a reviewer) counted per
 * project, batch ('' for all), UTC hour ('YYYY-MM-DDTHH', the first 13 characters of
 * completed_at) and reviewer: accepted, rejected and all decisions. The Quality page reads its
 * review rejections from here instead of walking every decision of the project's history.
 * Kept by the database, as migration 012 keeps the task counts:
 *
 * - SQLite: one row per key, moved by row triggers on task_history and asset_batches.
 * - PostgreSQL: statement triggers append delta rows (writers never wait on a shared counter
 *   row); readers and the job worker fold a key's deltas back into one row
 *   (review-count.repository.ts). A key's figure is the SUM of its rows on both engines.
 *
 * A decision on an asset in two batches is counted once in '' and once in each batch. An asset
 * joining or leaving a batch carries its decisions with it (found through its tasks, whose
 * history entries name the same asset).
 */

const KEY = 'project_id, batch_id, hour, reviewer';
const COUNTS = 'accepted, rejected, reviews';
/** Which history entries are review decisions. */
const DECISION = (h: string) => `${h}."trigger" = 'review' AND ${h}.completed_by IS NOT NULL`;
/** accepted, rejected and reviews of the entry `h`, times `sign`. */
const counted = (h: string, sign: string) =>
  `CASE WHEN ${h}.review_status = 'Accepted' THEN ${sign} ELSE 0 END,
   CASE WHEN ${h}.review_status = 'Rejected' THEN ${sign} ELSE 0 END, ${sign}`;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await upPostgres(db);
  // As 012: under the write lock, so the backfill meets the triggers exactly.
  else await underSqliteWriteLock(db, () => createSqlite(db));
}

async function createSqlite(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE review_counts (project_id TEXT NOT NULL, batch_id TEXT NOT NULL, hour TEXT NOT NULL,
         reviewer TEXT NOT NULL, accepted INTEGER NOT NULL, rejected INTEGER NOT NULL, reviews INTEGER NOT NULL,
         PRIMARY KEY (${KEY})) WITHOUT ROWID`,
    )
    .execute(db);
  const upsert = `ON CONFLICT (${KEY}) DO UPDATE SET accepted = accepted + excluded.accepted,
    rejected = rejected + excluded.rejected, reviews = reviews + excluded.reviews;`;
  /** The entry `h` (NEW or OLD) counted `sign` in '' and in each batch of its asset. */
  const add = (h: string, sign: string) => `
    INSERT INTO review_counts (${KEY}, ${COUNTS})
      SELECT ${h}.project_id, '', substr(${h}.completed_at, 1, 13), ${h}.completed_by, ${counted(h, sign)}
      WHERE ${DECISION(h)} ${upsert}
    INSERT INTO review_counts (${KEY}, ${COUNTS})
      SELECT ${h}.project_id, ab.batch_id, substr(${h}.completed_at, 1, 13), ${h}.completed_by, ${counted(h, sign)}
      FROM asset_batches AS ab WHERE ab.asset_id = ${h}.asset_id AND ${DECISION(h)} ${upsert}`;
  /** The decisions on the asset of the link `m` (NEW or OLD) counted `sign` in its batch. */
  const batchChange = (m: string, sign: string) => `
    INSERT INTO review_counts (${KEY}, ${COUNTS})
      SELECT h.project_id, ${m}.batch_id, substr(h.completed_at, 1, 13), h.completed_by, ${counted('h', sign)}
      FROM tasks AS t JOIN task_history AS h ON h.task_id = t.id
      WHERE t.asset_id = ${m}.asset_id AND h.asset_id = ${m}.asset_id AND ${DECISION('h')} ${upsert}`;
  const triggers = [
    `CREATE TRIGGER review_counts_insert AFTER INSERT ON task_history WHEN ${DECISION('NEW')}
     BEGIN ${add('NEW', '1')} END`,
    `CREATE TRIGGER review_counts_delete AFTER DELETE ON task_history WHEN ${DECISION('OLD')}
     BEGIN ${add('OLD', '-1')} END`,
    `CREATE TRIGGER review_counts_update
     AFTER UPDATE OF project_id, asset_id, completed_at, completed_by, review_status, "trigger" ON task_history
     BEGIN ${add('OLD', '-1')} ${add('NEW', '1')} END`,
    `CREATE TRIGGER review_counts_batch_insert AFTER INSERT ON asset_batches BEGIN ${batchChange('NEW', '1')} END`,
    `CREATE TRIGGER review_counts_batch_delete AFTER DELETE ON asset_batches BEGIN ${batchChange('OLD', '-1')} END`,
  ];
  for (const t of triggers) await sql.raw(t).execute(db);
  await sql.raw(backfill()).execute(db);
}

/** Counts of every review decision of the history as it stands, in '' and per batch. */
function backfill(): string {
  const sums = `sum(CASE WHEN h.review_status = 'Accepted' THEN 1 ELSE 0 END),
    sum(CASE WHEN h.review_status = 'Rejected' THEN 1 ELSE 0 END), count(*)`;
  return `INSERT INTO review_counts (${KEY}, ${COUNTS})
    SELECT h.project_id, '', substr(h.completed_at, 1, 13), h.completed_by, ${sums}
      FROM task_history AS h WHERE ${DECISION('h')}
      GROUP BY h.project_id, substr(h.completed_at, 1, 13), h.completed_by
    UNION ALL
    SELECT h.project_id, ab.batch_id, substr(h.completed_at, 1, 13), h.completed_by, ${sums}
      FROM task_history AS h JOIN asset_batches AS ab ON ab.asset_id = h.asset_id WHERE ${DECISION('h')}
      GROUP BY h.project_id, ab.batch_id, substr(h.completed_at, 1, 13), h.completed_by`;
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE review_counts (project_id TEXT NOT NULL, batch_id TEXT NOT NULL, hour TEXT NOT NULL,
         reviewer TEXT NOT NULL, accepted BIGINT NOT NULL, rejected BIGINT NOT NULL, reviews BIGINT NOT NULL)`,
    )
    .execute(db);
  await sql`CREATE INDEX review_counts_key ON review_counts (project_id, batch_id, hour, reviewer)`.execute(db);
  /** The decisions among the entries `rows` counted `sign` in '' and in each batch of their asset. */
  const entries = (rows: string, sign: string) => `
    SELECT h.project_id, '' AS batch_id, substr(h.completed_at, 1, 13) AS hour, h.completed_by AS reviewer,
      ${counted('h', sign)} FROM ${rows} AS h WHERE ${DECISION('h')}
    UNION ALL
    SELECT h.project_id, ab.batch_id, substr(h.completed_at, 1, 13), h.completed_by, ${counted('h', sign)}
      FROM ${rows} AS h JOIN asset_batches AS ab ON ab.asset_id = h.asset_id WHERE ${DECISION('h')}`;
  const append = (changes: string) => `
    INSERT INTO review_counts (${KEY}, ${COUNTS})
      SELECT ${KEY}, sum(a), sum(r), sum(n) FROM (${changes}) AS changes (${KEY}, a, r, n)
      GROUP BY ${KEY} HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(r) <> 0;`;
  const triggerFunction = (name: string, body: string) => createTriggerFunction(db, name, body);
  await triggerFunction(
    'review_counts_apply',
    `IF TG_OP = 'INSERT' THEN ${append(entries('new_rows', '1'))}
     ELSIF TG_OP = 'DELETE' THEN ${append(entries('old_rows', '-1'))}
     ELSE ${append(`${entries('new_rows', '1')} UNION ALL ${entries('old_rows', '-1')}`)}
     END IF;`,
  );
  const batchChange = (rows: string, sign: string) => `
    SELECT h.project_id, m.batch_id, substr(h.completed_at, 1, 13), h.completed_by, ${counted('h', sign)}
      FROM ${rows} AS m JOIN tasks AS t ON t.asset_id = m.asset_id
      JOIN task_history AS h ON h.task_id = t.id AND h.asset_id = m.asset_id WHERE ${DECISION('h')}`;
  await triggerFunction(
    'review_counts_batch_apply',
    `IF TG_OP = 'INSERT' THEN ${append(batchChange('new_rows', '1'))}
     ELSE ${append(batchChange('old_rows', '-1'))}
     END IF;`,
  );
  const triggers = [
    `CREATE TRIGGER review_counts_insert AFTER INSERT ON task_history REFERENCING NEW TABLE AS new_rows
     FOR EACH STATEMENT EXECUTE FUNCTION review_counts_apply()`,
    `CREATE TRIGGER review_counts_update AFTER UPDATE ON task_history
     REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION review_counts_apply()`,
    `CREATE TRIGGER review_counts_delete AFTER DELETE ON task_history REFERENCING OLD TABLE AS old_rows
     FOR EACH STATEMENT EXECUTE FUNCTION review_counts_apply()`,
    `CREATE TRIGGER review_counts_batch_insert AFTER INSERT ON asset_batches REFERENCING NEW TABLE AS new_rows
     FOR EACH STATEMENT EXECUTE FUNCTION review_counts_batch_apply()`,
    `CREATE TRIGGER review_counts_batch_delete AFTER DELETE ON asset_batches REFERENCING OLD TABLE AS old_rows
     FOR EACH STATEMENT EXECUTE FUNCTION review_counts_batch_apply()`,
  ];
  for (const t of triggers) await sql.raw(t).execute(db);
  // In the migration's transaction: CREATE TRIGGER has locked out writers of both tables.
  await sql.raw(backfill()).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropKeptCounts(
    db,
    'review_counts',
    {
      review_counts_insert: 'task_history',
      review_counts_update: 'task_history',
      review_counts_delete: 'task_history',
      review_counts_batch_insert: 'asset_batches',
      review_counts_batch_delete: 'asset_batches',
    },
    ['review_counts_apply', 'review_counts_batch_apply'],
  );
}
