import type { Executor } from '../db.js';

/*
 * What routing asks of the store about a task beyond its row (workflow/routing.ts, the Logic
 * conditions and rememberAssignee): each read sees only what is committed or written in the
 * caller's transaction.
 */

/** The batches of an asset. */
export function batchesOfAsset(trx: Executor, assetId: string) {
  return trx
    .selectFrom('asset_batches as ab')
    .innerJoin('batches as b', 'b.id', 'ab.batch_id')
    .select(['b.id', 'b.name'])
    .where('ab.asset_id', '=', assetId)
    .execute();
}

/** Who last submitted the task out of a Label stage. */
export async function lastLabelSubmitter(trx: Executor, taskId: string): Promise<string | undefined> {
  const row = await trx
    .selectFrom('task_history')
    .select('completed_by')
    .where('task_id', '=', taskId)
    .where('stage_type', '=', 'Label')
    .where('trigger', '=', 'submit')
    .orderBy('completed_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row?.completed_by ?? undefined;
}

/** The task's time in Label stages, ms, as its history entries keep it. */
export async function labelDuration(trx: Executor, taskId: string): Promise<number> {
  const row = await trx
    .selectFrom('task_history')
    .select((eb) => eb.fn.sum<number>('duration').as('total'))
    .where('task_id', '=', taskId)
    .where('stage_type', '=', 'Label')
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** The error codes of the task's open issues, as stored (JSON text per issue). */
export async function openIssueErrorCodes(trx: Executor, taskId: string): Promise<string[]> {
  const rows = await trx
    .selectFrom('issues')
    .select('error_codes')
    .where('task_id', '=', taskId)
    .where('status', '=', 'Open')
    .where('deleted', '=', 0)
    .execute();
  return rows.map((r) => r.error_codes);
}

/** Who last completed the task in a stage. */
export async function lastCompleterIn(trx: Executor, taskId: string, stageId: string): Promise<string | undefined> {
  const row = await trx
    .selectFrom('task_history')
    .select('completed_by')
    .where('task_id', '=', taskId)
    .where('stage_id', '=', stageId)
    .where('completed_by', 'is not', null)
    .orderBy('completed_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row?.completed_by ?? undefined;
}
