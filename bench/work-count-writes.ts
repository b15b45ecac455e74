/**
 * What the work counts' triggers (migration 029) cost their writers: review decisions written
 * one at a time, each in its own transaction as a review writes it (one task_history entry of an
 * asset in one batch), in blocks that alternate between the triggers in place and the triggers
 * taken away (the database as it was before any review or work count), so the machine's load
 * falls on both alike. On PostgreSQL it also seeds `--seed` tasks in the database
 * (seed-tasks-sql.ts) with and without the triggers, alternated.
 *
 *   npm run bench -- work-count-writes [--engine sqlite|postgres|both] [--entries 2000] [--blocks 6] [--seed 100000]
 */
import type { Kysely } from 'kysely';
import { newId } from '../src/ids.js';
import { openStore } from '../src/store/db.js';
import * as reviewCounts from '../src/store/migrations/026-review-counts.js';
import * as workCounts from '../src/store/migrations/029-work-counts.js';
import { type AnnotaryServer, startAnnotary } from './lib/annotary.js';
import { num } from './lib/format.js';
import { labelledProject, wholeNumber } from './lib/labelled-project.js';
import { seedTasksSql } from './lib/seed-tasks-sql.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const TASKS = 2000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
}

/** The server's migrations leave the triggers in place. */
let triggersOn = true;

/** Triggers in place (029 up, counting what is there) or taken away (029 and 026 down). */
async function setTriggers(db: Kysely<unknown>, on: boolean): Promise<void> {
  if (on === triggersOn) return;
  triggersOn = on;
  if (on) await workCounts.up(db);
  else {
    await workCounts.down(db);
    await reviewCounts.down(db);
  }
}

async function run(opts: BenchOptions): Promise<Result> {
  const entries = wholeNumber(opts.extra.entries, 2000, 'entries');
  const blocks = wholeNumber(opts.extra.blocks, 6, 'blocks');
  const seedTasks = wholeNumber(opts.extra.seed, 100_000, 'seed');
  const server: AnnotaryServer = await startAnnotary({ engine: opts.engine });
  try {
    const { projectId } = await labelledProject(server, TASKS, 3, true);
    const store = await openStore(
      server.schema
        ? { databaseUrl: server.schema.databaseUrl, poolSize: 2 }
        : { sqliteFile: `${server.dataDir}/annotary.db` },
    );
    const perEntry: Record<'with' | 'without', number[]> = { with: [], without: [] };
    const seedSeconds: Record<'with' | 'without', number[]> = { with: [], without: [] };
    try {
      const tasks = await store.db
        .selectFrom('tasks')
        .select(['id', 'asset_id'])
        .where('project_id', '=', projectId)
        .limit(TASKS)
        .execute();
      const db = store.db as unknown as Kysely<unknown>;
      let written = 0;
      for (let b = 0; b < blocks; b++) {
        const mode = b % 2 === 0 ? 'with' : 'without';
        await setTriggers(db, mode === 'with');
        const started = process.hrtime.bigint();
        for (let i = 0; i < entries; i++, written++) {
          const task = tasks[written % tasks.length] as { id: string; asset_id: string };
          await store.db.transaction().execute((trx) =>
            trx
              .insertInto('task_history')
              .values({
                id: newId(),
                task_id: task.id,
                project_id: projectId,
                asset_id: task.asset_id,
                stage_id: 'Review',
                stage_name: 'Review',
                stage_type: 'Review',
                answer: '{}',
                duration: 1500,
                completed_at: new Date(Date.parse('2026-03-01T00:00:00.000Z') + written * 1000).toISOString(),
                completed_by: `reviewer-${written % 7}@bench.example`,
                review_status: written % 4 ? 'Accepted' : 'Rejected',
                is_skipped: 0,
                consensus_id: null,
                trigger: 'review',
              })
              .execute(),
          );
        }
        perEntry[mode].push(Number(process.hrtime.bigint() - started) / 1000 / entries);
      }
      if (server.schema) {
        const batches = await server.api<{ data: { batches: { _id: string }[] } }>('GET', `/batches/${projectId}`);
        for (let b = 0; b < 4; b++) {
          const mode = b % 2 === 0 ? 'with' : 'without';
          await setTriggers(db, mode === 'with');
          // A project of its own per round: the rows are new, as a seed's are.
          const created = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', {
            name: `Seed ${b}`,
          });
          seedSeconds[mode].push(
            await seedTasksSql(
              server,
              {
                projectId: created.data.project._id,
                batchIds: batches.data.batches.map((x) => x._id),
                ownerEmail: 'owner@bench.example',
              },
              seedTasks,
            ),
          );
        }
      }
      await setTriggers(db, true);
    } finally {
      await store.close();
    }
    const w = median(perEntry.with);
    const wo = median(perEntry.without);
    const rows: (string | number)[][] = [
      ['one review decision per transaction', 'with triggers', `${w.toFixed(0)} µs`, perEntry.with.length],
      ['one review decision per transaction', 'without', `${wo.toFixed(0)} µs`, perEntry.without.length],
    ];
    if (seedSeconds.with.length) {
      rows.push([
        `seed of ${num(seedTasks)} tasks in the database`,
        'with triggers',
        `${median(seedSeconds.with).toFixed(1)} s`,
        seedSeconds.with.length,
      ]);
      rows.push([
        `seed of ${num(seedTasks)} tasks in the database`,
        'without',
        `${median(seedSeconds.without).toFixed(1)} s`,
        seedSeconds.without.length,
      ]);
    }
    return {
      table: { columns: ['write', 'work counts', 'median', 'blocks'], rows },
      summary:
        `work counts on ${opts.engine}: a review decision written alone costs ${w.toFixed(0)} µs with the triggers, ` +
        `${wo.toFixed(0)} µs without (${(w - wo).toFixed(0)} µs, ${((w / wo - 1) * 100).toFixed(0)} % more)`,
      notes: [
        `${num(entries)} entries per block, blocks alternating with and without the triggers, median per entry of each`,
        'without: migrations 029 and 026 taken down (no review or work counts); with: 029 up again (its backfill untimed)',
      ],
      data: { entries, blocks, perEntry, seedTasks, seedSeconds },
    };
  } finally {
    await server.stop();
  }
}

export default defineBenchmark({
  name: 'work-count-writes',
  description: "what the work counts' triggers cost a review decision written alone, and a seed in the database",
  run,
});
