import { type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { Db, Engine } from './db.js';
import * as m001 from './migrations/001-foundation.js';
import * as m002 from './migrations/002-tasks.js';
import * as m003 from './migrations/003-storages.js';
import * as m004 from './migrations/004-webhooks.js';
import * as m005 from './migrations/005-plugins.js';
import * as m006 from './migrations/006-exports.js';
import * as m007 from './migrations/007-task-counts.js';
import * as m008 from './migrations/008-metric-figures.js';
import * as m009 from './migrations/009-job-indexes.js';
import * as m010 from './migrations/010-client-requests.js';
import * as m011 from './migrations/011-sign-in.js';
import * as m012 from './migrations/012-task-facets.js';
import * as m013 from './migrations/013-queue-indexes.js';
import * as m014 from './migrations/014-principal-changes.js';
import * as m015 from './migrations/015-console-lists.js';
import * as m016 from './migrations/016-audit-log.js';
import * as m017 from './migrations/017-benchmarks.js';
import * as m018 from './migrations/018-benchmark-queue.js';
import * as m019 from './migrations/019-asset-media.js';
import * as m020 from './migrations/020-audit-person-operation.js';
import * as m021 from './migrations/021-asset-dataset.js';
import * as m022 from './migrations/022-quality-measures.js';
import * as m023 from './migrations/023-track-counts.js';
import * as m024 from './migrations/024-organization-sign-in.js';
import * as m025 from './migrations/025-plugin-assist.js';
import * as m026 from './migrations/026-review-counts.js';
import * as m027 from './migrations/027-benchmark-voxel-layers.js';
import * as m028 from './migrations/028-benchmark-brush-layers.js';
import * as m029 from './migrations/029-work-counts.js';
import * as m030 from './migrations/030-brush-frames.js';

/** Migrations in order; one list for SQLite and PostgreSQL. Never edit a released entry. */
const MIGRATIONS: Record<string, Migration> = {
  '001-foundation': m001,
  '002-tasks': m002,
  '003-storages': m003,
  '004-webhooks': m004,
  '005-plugins': m005,
  '006-exports': m006,
  '007-task-counts': m007,
  '008-metric-figures': m008,
  '009-job-indexes': m009,
  '010-client-requests': m010,
  '011-sign-in': m011,
  '012-task-facets': m012,
  '013-queue-indexes': m013,
  '014-principal-changes': m014,
  '015-console-lists': m015,
  '016-audit-log': m016,
  '017-benchmarks': m017,
  '018-benchmark-queue': m018,
  '019-asset-media': m019,
  '020-audit-person-operation': m020,
  '021-asset-dataset': m021,
  '022-quality-measures': m022,
  '023-track-counts': m023,
  '024-organization-sign-in': m024,
  '025-plugin-assist': m025,
  '026-review-counts': m026,
  '027-benchmark-voxel-layers': m027,
  '028-benchmark-brush-layers': m028,
  '029-work-counts': m029,
  '030-brush-frames': m030,
};

class StaticProvider implements MigrationProvider {
  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve(MIGRATIONS);
  }
}

/** Brings the store to the latest schema; returns the names of the migrations it ran. */
export async function migrateToLatest(store: { db: Db; engine: Engine }): Promise<string[]> {
  const { db, engine } = store;
  if (await allApplied(db)) return [];
  // Kysely looks its bookkeeping tables up by schema: name the one search_path points at.
  const schema =
    engine === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider: new StaticProvider(),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Whether the store already lists every migration, and only those: the common case of a start,
 * answered by one read instead of Kysely's migrator, which looks up every table's columns and
 * takes its lock first (a measurable part of the server's start-up). Anything else, a fresh store
 * included (no bookkeeping table yet), goes through the migrator.
 */
async function allApplied(db: Db): Promise<boolean> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    const applied = new Set(rows.map((r) => r.name));
    const known = Object.keys(MIGRATIONS);
    return applied.size === known.length && known.every((name) => applied.has(name));
  } catch {
    return false;
  }
}
