/**
 * Finished jobs do not stay forever. A done job is of no further use once its effects have
 * committed (the move, the history entry and the webhook log line live in their own tables), but
 * every webhook delivery, plugin call and export leaves one, so a busy project would grow the
 * queue's table by a row per task and stage without end. Done jobs older than the retention are
 * deleted in small batches, so a sweep never holds the store for long; failed jobs are kept
 * (they are what an operator reads to find out what went wrong), as are queued and running ones.
 */
import type { Db } from '../store/db.js';

/** Rows deleted per statement: one short write transaction each. */
export const PRUNE_BATCH = 1_000;

/**
 * Deletes done jobs last updated before `before` (epoch ms), `batch` rows per statement, at
 * most `maxRows` in all; answers how many it deleted.
 */
export async function pruneDoneJobs(
  db: Db,
  before: number,
  opts: { batch?: number; maxRows?: number } = {},
): Promise<number> {
  const batch = opts.batch ?? PRUNE_BATCH;
  const maxRows = opts.maxRows ?? Number.POSITIVE_INFINITY;
  const cutoff = new Date(before).toISOString();
  let deleted = 0;
  while (deleted < maxRows) {
    const limit = Math.min(batch, maxRows - deleted);
    const result = await db
      .deleteFrom('jobs')
      .where('id', 'in', (eb) =>
        eb.selectFrom('jobs').select('id').where('status', '=', 'done').where('updated_at', '<', cutoff).limit(limit),
      )
      .executeTakeFirst();
    const n = Number(result.numDeletedRows);
    deleted += n;
    if (n < limit) break;
    // Let requests and the worker in between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return deleted;
}

export interface RetentionOptions {
  /** How long a done job is kept after it ended, in ms; 0 keeps them forever. */
  keepDoneMs: number;
  /** How often to sweep, in ms; the first sweep comes one period after start. Default hourly. */
  everyMs?: number;
}

export const DEFAULT_SWEEP_MS = 3_600_000;

/**
 * Rows one sweep deletes at most. Each batch finds its rows by a scan (no index keeps done jobs:
 * it would cost every job's end a write), and on PostgreSQL the rows deleted by earlier batches
 * stay as dead tuples until vacuum, so a sweep is bounded; a backlog goes over several sweeps.
 */
export const SWEEP_MAX_ROWS = 100_000;
