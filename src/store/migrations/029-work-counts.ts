import { type Kysely, PostgresAdapter, sql } from 'kysely';
import * as reviewCounts from './026-review-counts.js';
import { createTriggerFunction, dropKeptCounts } from './kept-counts.js';
import { underSqliteWriteLock } from './write-lock.js';

/*
 * The work of the task history counted by the database, so the performance report and the
 * Quality page's review rejections read counts instead of every entry:
 *
 * - work_counts (per UTC hour, 'YYYY-MM-DDTHH') and work_minute_counts (per UTC minute,
 *   'YYYY-MM-DDTHH:MM'): the entries that are a person's work (completed_by set, and a submit, a
 *   review or time reported), per project, batch ('' for all), period, person, stage (id, name,
 *   type) and trigger: accepted, rejected, entries and the time reported. A reader takes the whole
 *   hours of an interval from the first, the whole minutes at its ends from the second and only
 *   the seconds at its very ends from the history. They replace migration 026's review counts
 *   (its figures are those of trigger 'review').
 * - batch_overlaps: per pair of batches (batch_a < batch_b), the assets in both, so a reader knows
 *   when summing the counts of several batches is exact (no asset in two of them).
 *
 * Kept as 012 and 026 keep theirs: SQLite, one row per key moved by row triggers; PostgreSQL,
 * statement triggers append delta rows that readers sum and the job worker folds
 * (work-count.repository.ts). A figure is the SUM of its key's rows on both engines.
 */

const KEY = 'project_id, batch_id, period, person, stage_id, stage_name, stage_type, "trigger"';
const COUNTS = 'accepted, rejected, entries, time_spent';
/** [table, characters of completed_at in its period] */
const LEVELS: [string, number][] = [
  ['work_counts', 13],
  ['work_minute_counts', 16],
];
/** Which history entries are a person's work (as the performance report has always counted). */
const WORK = (h: string) =>
  `${h}.completed_by IS NOT NULL AND (${h}."trigger" IN ('submit', 'review') OR ${h}.duration > 0)`;
/** The key columns of the entry `h` for a period of `len` characters, its batch being `batch`. */
const keyOf = (h: string, batch: string, len: number) =>
  `${h}.project_id, ${batch}, substr(${h}.completed_at, 1, ${len}), ${h}.completed_by, ${h}.stage_id,
   ${h}.stage_name, ${h}.stage_type, ${h}."trigger"`;
/** accepted, rejected, entries and time of the entry `h`, times `sign`. */
const counted = (h: string, sign: string) =>
  `CASE WHEN ${h}.review_status = 'Accepted' THEN ${sign} ELSE 0 END,
   CASE WHEN ${h}.review_status = 'Rejected' THEN ${sign} ELSE 0 END, ${sign}, ${sign} * ${h}.duration`;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await reviewCounts.down(db);
    await upPostgres(db);
  } else {
    await underSqliteWriteLock(db, async () => {
      await reviewCounts.down(db);
      await createSqlite(db);
    });
  }
}

async function createTables(db: Kysely<unknown>, int: string, sqlite: boolean): Promise<void> {
  const pk = sqlite ? `, PRIMARY KEY (${KEY})) WITHOUT ROWID` : ')';
  for (const [table] of LEVELS) {
    await sql
      .raw(
        `CREATE TABLE ${table} (project_id TEXT NOT NULL, batch_id TEXT NOT NULL, period TEXT NOT NULL,
           person TEXT NOT NULL, stage_id TEXT NOT NULL, stage_name TEXT NOT NULL, stage_type TEXT NOT NULL,
           "trigger" TEXT NOT NULL, accepted ${int} NOT NULL, rejected ${int} NOT NULL, entries ${int} NOT NULL,
           time_spent ${int} NOT NULL${pk}`,
      )
      .execute(db);
    if (!sqlite) await sql.raw(`CREATE INDEX ${table}_key ON ${table} (${KEY})`).execute(db);
  }
  await sql
    .raw(
      `CREATE TABLE batch_overlaps (batch_a TEXT NOT NULL, batch_b TEXT NOT NULL, assets ${int} NOT NULL${
        sqlite ? ', PRIMARY KEY (batch_a, batch_b)) WITHOUT ROWID' : ')'
      }`,
    )
    .execute(db);
  if (!sqlite) await sql`CREATE INDEX batch_overlaps_pair ON batch_overlaps (batch_a, batch_b)`.execute(db);
}

async function createSqlite(db: Kysely<unknown>): Promise<void> {
  await createTables(db, 'INTEGER', true);
  const upsert = `ON CONFLICT (${KEY}) DO UPDATE SET accepted = accepted + excluded.accepted,
    rejected = rejected + excluded.rejected, entries = entries + excluded.entries,
    time_spent = time_spent + excluded.time_spent;`;
  /** The entry `h` (NEW or OLD) counted `sign` in '' and in each batch of its asset, per level. */
  const add = (h: string, sign: string) =>
    LEVELS.map(
      ([table, len]) => `
    INSERT INTO ${table} (${KEY}, ${COUNTS})
      SELECT ${keyOf(h, "''", len)}, ${counted(h, sign)} WHERE ${WORK(h)} ${upsert}
    INSERT INTO ${table} (${KEY}, ${COUNTS})
      SELECT ${keyOf(h, 'ab.batch_id', len)}, ${counted(h, sign)}
      FROM asset_batches AS ab WHERE ab.asset_id = ${h}.asset_id AND ${WORK(h)} ${upsert}`,
    ).join('');
  /** The work on the asset of the link `m` (NEW or OLD) counted `sign` in its batch. */
  const batchChange = (m: string, sign: string) =>
    LEVELS.map(
      ([table, len]) => `
    INSERT INTO ${table} (${KEY}, ${COUNTS})
      SELECT ${keyOf('h', `${m}.batch_id`, len)}, ${counted('h', sign)}
      FROM tasks AS t JOIN task_history AS h ON h.task_id = t.id
      WHERE t.asset_id = ${m}.asset_id AND h.asset_id = ${m}.asset_id AND ${WORK('h')} ${upsert}`,
    ).join('');
  /** The pairs the link `m` makes with the asset's other batches, counted `sign`. */
  const overlap = (m: string, sign: string) => `
    INSERT INTO batch_overlaps (batch_a, batch_b, assets)
      SELECT min(${m}.batch_id, o.batch_id), max(${m}.batch_id, o.batch_id), ${sign}
      FROM asset_batches AS o WHERE o.asset_id = ${m}.asset_id AND o.batch_id <> ${m}.batch_id
    ON CONFLICT (batch_a, batch_b) DO UPDATE SET assets = assets + excluded.assets;`;
  const triggers = [
    `CREATE TRIGGER work_counts_insert AFTER INSERT ON task_history WHEN ${WORK('NEW')}
     BEGIN ${add('NEW', '1')} END`,
    `CREATE TRIGGER work_counts_delete AFTER DELETE ON task_history WHEN ${WORK('OLD')}
     BEGIN ${add('OLD', '-1')} END`,
    `CREATE TRIGGER work_counts_update
     AFTER UPDATE OF project_id, asset_id, stage_id, stage_name, stage_type, duration, completed_at, completed_by,
       review_status, "trigger" ON task_history
     BEGIN ${add('OLD', '-1')} ${add('NEW', '1')} END`,
    `CREATE TRIGGER work_counts_batch_insert AFTER INSERT ON asset_batches
     BEGIN ${batchChange('NEW', '1')} ${overlap('NEW', '1')} END`,
    `CREATE TRIGGER work_counts_batch_delete AFTER DELETE ON asset_batches
     BEGIN ${batchChange('OLD', '-1')} ${overlap('OLD', '-1')} END`,
  ];
  for (const t of triggers) await sql.raw(t).execute(db);
  for (const b of backfill()) await sql.raw(b).execute(db);
}

/** Counts of the history and the batches as they stand. */
function backfill(): string[] {
  const sums = `sum(CASE WHEN h.review_status = 'Accepted' THEN 1 ELSE 0 END),
    sum(CASE WHEN h.review_status = 'Rejected' THEN 1 ELSE 0 END), count(*), sum(h.duration)`;
  // A constant (the '' of all batches) is no GROUP BY term on PostgreSQL.
  const group = (batch: string, len: number) =>
    `h.project_id,${batch === "''" ? '' : ` ${batch},`} substr(h.completed_at, 1, ${len}), h.completed_by, h.stage_id, h.stage_name,
     h.stage_type, h."trigger"`;
  const work = LEVELS.map(
    ([table, len]) => `INSERT INTO ${table} (${KEY}, ${COUNTS})
    SELECT ${keyOf('h', "''", len)}, ${sums} FROM task_history AS h WHERE ${WORK('h')}
      GROUP BY ${group("''", len)}
    UNION ALL
    SELECT ${keyOf('h', 'ab.batch_id', len)}, ${sums}
      FROM task_history AS h JOIN asset_batches AS ab ON ab.asset_id = h.asset_id WHERE ${WORK('h')}
      GROUP BY ${group('ab.batch_id', len)}`,
  );
  // Every pair of an asset's batches once (a < b); min/max of two on SQLite are least/greatest.
  const overlaps = `INSERT INTO batch_overlaps (batch_a, batch_b, assets)
    SELECT a.batch_id, b.batch_id, count(*) FROM asset_batches AS a
      JOIN asset_batches AS b ON b.asset_id = a.asset_id AND a.batch_id < b.batch_id
    GROUP BY a.batch_id, b.batch_id`;
  return [...work, overlaps];
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  await createTables(db, 'BIGINT', false);
  /** The work among the entries `rows` counted `sign` in '' and in each batch of their asset. */
  const entries = (rows: string, sign: string, len: number) => `
    SELECT ${keyOf('h', "''", len)}, ${counted('h', sign)} FROM ${rows} AS h WHERE ${WORK('h')}
    UNION ALL
    SELECT ${keyOf('h', 'ab.batch_id', len)}, ${counted('h', sign)}
      FROM ${rows} AS h JOIN asset_batches AS ab ON ab.asset_id = h.asset_id WHERE ${WORK('h')}`;
  const append = (table: string, changes: string) => `
    INSERT INTO ${table} (${KEY}, ${COUNTS})
      SELECT ${KEY}, sum(a), sum(r), sum(n), sum(d)
      FROM (${changes}) AS changes (${KEY}, a, r, n, d)
      GROUP BY ${KEY} HAVING sum(n) <> 0 OR sum(a) <> 0 OR sum(r) <> 0 OR sum(d) <> 0;`;
  const perLevel = (changes: (len: number) => string) =>
    LEVELS.map(([table, len]) => append(table, changes(len))).join('\n');
  await createTriggerFunction(
    db,
    'work_counts_apply',
    `IF TG_OP = 'INSERT' THEN ${perLevel((len) => entries('new_rows', '1', len))}
     ELSIF TG_OP = 'DELETE' THEN ${perLevel((len) => entries('old_rows', '-1', len))}
     ELSE ${perLevel((len) => `${entries('new_rows', '1', len)} UNION ALL ${entries('old_rows', '-1', len)}`)}
     END IF;`,
  );
  const batchChange = (rows: string, sign: string, len: number) => `
    SELECT ${keyOf('h', 'm.batch_id', len)}, ${counted('h', sign)}
      FROM ${rows} AS m JOIN tasks AS t ON t.asset_id = m.asset_id
      JOIN task_history AS h ON h.task_id = t.id AND h.asset_id = m.asset_id WHERE ${WORK('h')}`;
  // Pairs a statement's links make (or unmake) with the asset's other batches: with the links it
  // leaves in place, and among its own links once (a < b).
  const pairs = (rows: string, sign: string, inserted: boolean) => `
    INSERT INTO batch_overlaps (batch_a, batch_b, assets)
    SELECT least(x, y), greatest(x, y), ${sign} * count(*) FROM (
      SELECT m.batch_id AS x, o.batch_id AS y FROM ${rows} AS m JOIN asset_batches AS o
        ON o.asset_id = m.asset_id AND o.batch_id <> m.batch_id
      ${
        inserted
          ? `WHERE m.batch_id < o.batch_id OR NOT EXISTS
               (SELECT 1 FROM ${rows} AS n WHERE n.asset_id = o.asset_id AND n.batch_id = o.batch_id)`
          : `UNION ALL SELECT m.batch_id, o.batch_id FROM ${rows} AS m JOIN ${rows} AS o
               ON o.asset_id = m.asset_id AND m.batch_id < o.batch_id`
      }) AS p GROUP BY 1, 2;`;
  await createTriggerFunction(
    db,
    'work_counts_batch_apply',
    `IF TG_OP = 'INSERT' THEN ${perLevel((len) => batchChange('new_rows', '1', len))} ${pairs('new_rows', '1', true)}
     ELSE ${perLevel((len) => batchChange('old_rows', '-1', len))} ${pairs('old_rows', '-1', false)}
     END IF;`,
  );
  const triggers = [
    `CREATE TRIGGER work_counts_insert AFTER INSERT ON task_history REFERENCING NEW TABLE AS new_rows
     FOR EACH STATEMENT EXECUTE FUNCTION work_counts_apply()`,
    `CREATE TRIGGER work_counts_update AFTER UPDATE ON task_history
     REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION work_counts_apply()`,
    `CREATE TRIGGER work_counts_delete AFTER DELETE ON task_history REFERENCING OLD TABLE AS old_rows
     FOR EACH STATEMENT EXECUTE FUNCTION work_counts_apply()`,
    `CREATE TRIGGER work_counts_batch_insert AFTER INSERT ON asset_batches REFERENCING NEW TABLE AS new_rows
     FOR EACH STATEMENT EXECUTE FUNCTION work_counts_batch_apply()`,
    `CREATE TRIGGER work_counts_batch_delete AFTER DELETE ON asset_batches REFERENCING OLD TABLE AS old_rows
     FOR EACH STATEMENT EXECUTE FUNCTION work_counts_batch_apply()`,
  ];
  for (const t of triggers) await sql.raw(t).execute(db);
  // In the migration's transaction: CREATE TRIGGER has locked out writers of both tables.
  for (const b of backfill()) await sql.raw(b).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const triggers = {
    work_counts_insert: 'task_history',
    work_counts_update: 'task_history',
    work_counts_delete: 'task_history',
    work_counts_batch_insert: 'asset_batches',
    work_counts_batch_delete: 'asset_batches',
  };
  await dropKeptCounts(db, 'work_counts', triggers, ['work_counts_apply', 'work_counts_batch_apply']);
  await db.schema.dropTable('work_minute_counts').ifExists().execute();
  await db.schema.dropTable('batch_overlaps').ifExists().execute();
  await reviewCounts.up(db);
}
