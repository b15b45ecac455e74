import { sql, type RawBuilder } from 'kysely';

/**
 * The asset in `assetColumn` is in any of the batches. An empty list matches nothing (a scope of
 * batches that were all deleted is empty, not everything). Usable in a query builder's `where` and
 * inside raw `sql` alike.
 */
export function assetInBatches(assetColumn: string, batchIds: readonly string[]): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from asset_batches ab where ab.asset_id = ${sql.ref(assetColumn)} and ab.batch_id in (${sql.join(
    batchIds.length ? batchIds : [''],
  )}))`;
}

/** The task in `taskColumn` has its asset in any of the batches (see `assetInBatches`). */
export function taskInBatches(taskColumn: string, batchIds: readonly string[]): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from tasks bt inner join asset_batches ab on ab.asset_id = bt.asset_id where bt.id = ${sql.ref(
    taskColumn,
  )} and ab.batch_id in (${sql.join(batchIds.length ? batchIds : [''])}))`;
}
