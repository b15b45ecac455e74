/**
 * GET /v2/project/{id}/queue on a project of 1,000,000 labelled tasks (the data of the export,
 * metrics and task-list benchmarks: 100,000 of them wait in Review, nobody holds them), on a real
 * Annotary server process, as the project's Manager. Two stage states:
 * - "all free": the 100,000 Review tasks wait for anyone (the count stops at its cap of 1000);
 * - "mostly held": all but 500 of them are assigned to someone else (the count is exact, and
 *   without an index on the assignee it reads every held row to find the free ones).
 * Each state is measured with migration 013's index and without it (dropped and
 * made again), alternately for `--rounds` rounds (default 2): the "without" figures are the
 * store before this change. Per cell: the median of `--requests` requests (default 20), and,
 * straight on the store, the capped count the queue runs, the exact count(*) it avoids, and the
 * caller's held count (median of 5 each); then the plans of the capped count.
 *
 *   npm run bench -- work-queue [--engine sqlite|postgres|both] [--tasks 1000000] [--requests 20] [--rounds 2]
 */
import { sql } from 'kysely';
import { freeForCaller, heldByCaller } from '../src/store/repositories/work-queue.repository.js';
import { QUEUE_COUNT_CAP } from '../src/services/tasks/queue.service.js';
import { openStore, type Store } from '../src/store/db.js';
import { type AnnotaryServer, BENCH_OWNER_EMAIL, startAnnotary } from './lib/annotary.js';
import { ms, num } from './lib/format.js';
import { labelledProject, taskCounts, wholeNumber } from './lib/labelled-project.js';
import { queryPlan } from './lib/query-plan.js';
import { summarize } from './lib/stats.js';
import { medianMs } from './lib/task-list-store.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const STAGE = 'Review';
const LEFT_FREE = 500;

interface Cell {
  state: string;
  indexes: boolean;
  round: number;
  httpMs: number;
  waiting: number | null;
  cappedMs: number;
  exactMs: number;
  exact: number;
  heldMs: number;
}

async function dropIndexes(store: Store) {
  await sql`DROP INDEX tasks_stage_assignee`.execute(store.db);
}

/** As migration 013 makes it. */
async function createIndexes(store: Store) {
  await sql`CREATE INDEX tasks_stage_assignee
    ON tasks (project_id, stage_id, deleted, assignee, priority DESC, created_at, id)`.execute(store.db);
  await sql`ANALYZE tasks`.execute(store.db);
}

function cappedCount(store: Store, projectId: string) {
  return store.db
    .selectFrom(
      freeForCaller(store.db, projectId, STAGE, BENCH_OWNER_EMAIL)
        .select(sql.lit(1).as('one'))
        .limit(QUEUE_COUNT_CAP + 1)
        .as('free'),
    )
    .select((eb) => eb.fn.countAll<number | string>().as('n'));
}

async function measure(
  server: AnnotaryServer,
  store: Store,
  projectId: string,
  requests: number,
  cell: Omit<Cell, 'httpMs' | 'waiting' | 'cappedMs' | 'exactMs' | 'exact' | 'heldMs'>,
): Promise<Cell> {
  let waiting: number | null = null;
  const get = async () => {
    const res = await server.api<{ data: { stages: { stageId: string; waiting: number | null }[] } }>(
      'GET',
      `/project/${projectId}/queue`,
    );
    waiting = res.data.stages.find((s) => s.stageId === STAGE)?.waiting ?? null;
  };
  await get();
  const httpMs = await medianMs(get, requests);
  const capped = cappedCount(store, projectId);
  const cappedMs = await medianMs(() => capped.executeTakeFirstOrThrow(), 5);
  const exactQuery = freeForCaller(store.db, projectId, STAGE, BENCH_OWNER_EMAIL).select((eb) =>
    eb.fn.countAll<number | string>().as('n'),
  );
  let exact = 0;
  const exactMs = await medianMs(async () => {
    exact = Number((await exactQuery.executeTakeFirstOrThrow()).n);
  }, 5);
  const held = heldByCaller(store.db, projectId, STAGE, BENCH_OWNER_EMAIL).select((eb) =>
    eb.fn.countAll<number | string>().as('n'),
  );
  const heldMs = await medianMs(() => held.executeTakeFirstOrThrow(), 5);
  return { ...cell, httpMs, waiting, cappedMs, exactMs, exact, heldMs };
}

async function run(opts: BenchOptions): Promise<Result> {
  const [tasks = 1_000_000] = taskCounts(opts.extra.tasks, [1_000_000]);
  const requests = wholeNumber(opts.extra.requests, 20, 'requests');
  const rounds = wholeNumber(opts.extra.rounds, 2, 'rounds');
  const server = await startAnnotary({ engine: opts.engine });
  try {
    const { projectId, seedSeconds } = await labelledProject(server, tasks);
    const store = await openStore(
      server.schema
        ? { databaseUrl: server.schema.databaseUrl, poolSize: 1 }
        : { sqliteFile: `${server.dataDir}/annotary.db` },
    );
    const cells: Cell[] = [];
    const plans: string[] = [];
    try {
      await sql`ANALYZE tasks`.execute(store.db);
      for (const state of ['all free', 'mostly held']) {
        if (state === 'mostly held') {
          // Someone else holds all but the newest LEFT_FREE tasks of the stage.
          await sql`UPDATE tasks SET assignee = 'someone.else@example.com' WHERE id IN (
              SELECT id FROM tasks WHERE project_id = ${projectId} AND stage_id = ${STAGE} AND deleted = 0
              ORDER BY created_at, id LIMIT (SELECT count(*) - ${LEFT_FREE} FROM tasks
                WHERE project_id = ${projectId} AND stage_id = ${STAGE} AND deleted = 0))`.execute(store.db);
          await sql`ANALYZE tasks`.execute(store.db);
        }
        plans.push(`plan of the capped count, ${state}, with the indexes:`);
        plans.push(...(await queryPlan(store, cappedCount(store, projectId).compile())).map((l) => `  ${l}`));
        for (let round = 1; round <= rounds; round++) {
          cells.push(await measure(server, store, projectId, requests, { state, indexes: true, round }));
          await dropIndexes(store);
          if (round === 1) {
            plans.push(`plan of the capped count, ${state}, without them:`);
            plans.push(...(await queryPlan(store, cappedCount(store, projectId).compile())).map((l) => `  ${l}`));
          }
          cells.push(await measure(server, store, projectId, requests, { state, indexes: false, round }));
          await createIndexes(store);
        }
      }
    } finally {
      await store.close();
    }
    const rows = cells.map((c) => [
      c.state,
      c.indexes ? 'with 013' : 'without',
      c.round,
      ms(c.httpMs),
      c.waiting === null ? '-' : num(c.waiting),
      ms(c.cappedMs),
      ms(c.exactMs),
      num(c.exact),
      ms(c.heldMs),
    ]);
    const median = (state: string, indexes: boolean) =>
      summarize(cells.filter((c) => c.state === state && c.indexes === indexes).map((c) => c.httpMs)).p50;
    return {
      table: {
        columns: [
          'stage',
          'indexes',
          'round',
          'GET /queue',
          'waiting',
          'capped count',
          'exact count(*)',
          'free',
          'held count',
        ],
        rows,
      },
      summary:
        `work queue on ${opts.engine}, ${num(tasks)} tasks: GET /queue median ${ms(median('all free', true))} all free, ` +
        `${ms(median('mostly held', true))} mostly held (without the 013 index ${ms(median('all free', false))}, ` +
        `${ms(median('mostly held', false))})`,
      notes: plans,
      data: {
        tasks,
        seedSeconds,
        requests,
        rounds,
        cells,
        plans,
        postgresVersion: server.schema?.serverVersion ?? null,
      },
    };
  } finally {
    await server.stop();
  }
}

export default defineBenchmark({
  name: 'work-queue',
  description:
    'GET /v2/project/{id}/queue on 1,000,000 tasks (100,000 waiting in Review), all free and mostly held, with and without the index of migration 013, alternately; store count times and plans (--tasks, --requests, --rounds)',
  run,
});
