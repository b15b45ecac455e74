import { setTimeout as sleep } from 'node:timers/promises';
import { type AnnotaryServer, BENCH_OWNER_EMAIL } from './annotary.js';
import { fiveStageWorkflow, streetSceneOntology } from './fixtures.js';
import { seedTasks } from './seed-tasks.js';
import { seedTasksSql } from './seed-tasks-sql.js';

/**
 * A project of `count` labelled tasks on a running benchmark server: the project, its ontology,
 * workflow and two batches through the API (as a user would), the tasks through the store
 * (seed-tasks.ts). Shared by the export and metrics benchmarks so both measure the same data.
 */
export async function labelledProject(
  server: AnnotaryServer,
  count: number,
  objectsPerTask = 3,
  /** PostgreSQL: make the rows in the database (seed-tasks-sql.ts) instead of sending them. */
  inDatabase = false,
): Promise<{ projectId: string; seedSeconds: number }> {
  const created = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', {
    name: `Labelled ${count}`,
  });
  const projectId = created.data.project._id;
  await server.api('POST', `/project/${projectId}`, { categorySchema: streetSceneOntology() });
  await server.api('POST', `/project/${projectId}`, { stages: fiveStageWorkflow() });
  await server.api('POST', `/project/${projectId}`, { batches: [{ name: 'January' }, { name: 'February' }] });
  const batches = await server.api<{ data: { batches: { _id: string }[] } }>('GET', `/batches/${projectId}`);
  const target = {
    projectId,
    batchIds: batches.data.batches.map((b) => b._id),
    ownerEmail: BENCH_OWNER_EMAIL,
    objectsPerTask,
  };
  const seedSeconds =
    inDatabase && server.schema ? await seedTasksSql(server, target, count) : await seedTasks(server, target, count);
  // Seeding SQLite blocks this process's event loop for minutes: the server has meanwhile closed
  // the idle keep-alive connection, and fetch would reuse it before noticing. Let it notice.
  await sleep(1000);
  return { projectId, seedSeconds };
}

/** `--tasks 100000,1000000` as numbers (at least 1 each). */
export function taskCounts(raw: string | undefined, fallback: number[]): number[] {
  if (raw === undefined) return fallback;
  const counts = raw.split(',').map((s) => Number(s.trim().replace(/_/g, '')));
  if (!counts.length || counts.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new Error(`--tasks must be whole numbers >= 1 separated by commas, got ${raw}`);
  }
  return counts;
}

/** `--flag 20` as a whole number >= 1, or `fallback` when the flag is absent. */
export function wholeNumber(raw: string | undefined, fallback: number, flag: string): number {
  const n = raw === undefined ? fallback : Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} must be a whole number >= 1, got ${raw}`);
  return n;
}
