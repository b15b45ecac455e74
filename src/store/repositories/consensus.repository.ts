import { PostgresAdapter } from 'kysely';
import type { Executor } from '../db.js';
import type { ConsensusAgreementTable, TaskRow } from '../schema.js';

/*
 * Consensus rounds in the store: the copies of a parent (task rows of type `consensus`), their
 * retirement, the parent's row lock, and what a decided round measured per ontology item.
 */

const isPostgres = (trx: Executor) => trx.getExecutor().adapter instanceof PostgresAdapter;

/** The live stored copies of a parent in a Consensus stage. */
export function storedCopies(trx: Executor, parentId: string, consensusId: string): Promise<TaskRow[]> {
  return trx
    .selectFrom('tasks')
    .selectAll()
    .where('parent_task_id', '=', parentId)
    .where('consensus_id', '=', consensusId)
    .where('deleted', '=', 0)
    .execute();
}

/** Soft-deletes the copies of a finished or abandoned round (`openOnly`: those not yet submitted). */
export async function retireCopies(
  trx: Executor,
  parentId: string,
  consensusId: string,
  now: string,
  opts: { openOnly: boolean },
): Promise<void> {
  let q = trx
    .updateTable('tasks')
    .set({ deleted: 1, updated_at: now })
    .where('parent_task_id', '=', parentId)
    .where('consensus_id', '=', consensusId)
    .where('deleted', '=', 0);
  if (opts.openOnly) q = q.where('stage_id', '<>', consensusId);
  await q.execute();
}

/**
 * A parent's row, locked to the end of `trx` on PostgreSQL (SQLite runs one writing transaction
 * at a time): of two copies submitted at once, the second waits for the first to commit.
 */
export function lockedParent(trx: Executor, id: string): Promise<TaskRow | undefined> {
  let q = trx.selectFrom('tasks').selectAll().where('id', '=', id);
  if (isPostgres(trx)) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Takes a parent's row lock on PostgreSQL, as a copy's submission does; nothing on SQLite. */
export async function lockParent(trx: Executor, id: string): Promise<void> {
  if (isPostgres(trx)) await trx.selectFrom('tasks').select('id').where('id', '=', id).forUpdate().execute();
}

/** The asset fields a round's scoring reads (a video's frame count). */
export function assetOfRound(trx: Executor, assetId: string) {
  return trx.selectFrom('assets').select(['data', 'metadata', 'dataset']).where('id', '=', assetId).executeTakeFirst();
}

/** Rows per insert of a round's measures: far under SQLite's bound parameter limit. */
const MEASURE_ROWS_PER_INSERT = 50;

/** Keeps what a decided round measured per ontology item, for the Quality page. */
export async function insertAgreements(trx: Executor, rows: ConsensusAgreementTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += MEASURE_ROWS_PER_INSERT) {
    await trx
      .insertInto('consensus_agreements')
      .values(rows.slice(i, i + MEASURE_ROWS_PER_INSERT))
      .execute();
  }
}
