import type { Db } from '../../store/db.js';
import { deleteAuditRecordsBefore } from '../../store/repositories/audit.repository.js';

/** Rows deleted per statement: one short write each, so a sweep never holds the store for long. */
const BATCH = 1_000;
/** Rows one sweep deletes at most; a backlog goes over several sweeps. */
const SWEEP_MAX_ROWS = 100_000;

/**
 * Deletes the audit records older than `keepDays` before `now` (epoch ms), oldest first; answers
 * how many. The only delete the audit log knows: records are kept for the configured time, then
 * go, whoever made them.
 */
export async function pruneAuditRecords(db: Db, now: number, keepDays: number): Promise<number> {
  if (keepDays <= 0) return 0;
  const cutoffSeconds = Math.floor((now - keepDays * 86_400_000) / 1000);
  // Ids start with their creation's seconds: every id below this one is older than the cutoff.
  const beforeId = cutoffSeconds.toString(16).padStart(8, '0') + '0'.repeat(16);
  let deleted = 0;
  while (deleted < SWEEP_MAX_ROWS) {
    const n = await deleteAuditRecordsBefore(db, beforeId, BATCH);
    deleted += n;
    if (n < BATCH) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return deleted;
}
