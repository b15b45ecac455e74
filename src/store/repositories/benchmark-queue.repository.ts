import type { Executor } from '../db.js';
import type { BenchmarkHandoutTable, BenchmarkSubmissionTable } from '../schema.js';

export function findHandout(db: Executor, projectId: string, labeler: string) {
  return db
    .selectFrom('benchmark_handouts')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('labeler', '=', labeler)
    .executeTakeFirst();
}

export async function putHandout(db: Executor, row: BenchmarkHandoutTable) {
  await db.insertInto('benchmark_handouts').values(row).execute();
}

export async function deleteHandout(db: Executor, projectId: string, labeler: string) {
  await db
    .deleteFrom('benchmark_handouts')
    .where('project_id', '=', projectId)
    .where('labeler', '=', labeler)
    .execute();
}

/** The first live benchmark of the project the labeler has not submitted. */
export async function firstUndone(db: Executor, projectId: string, labeler: string) {
  const row = await db
    .selectFrom('tasks')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('type', '=', 'benchmark')
    .where('deleted', '=', 0)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('benchmark_submissions as s')
            .select('s.id')
            .whereRef('s.task_id', '=', 'tasks.id')
            .where('s.labeler', '=', labeler),
        ),
      ),
    )
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row;
}

export async function insertSubmission(db: Executor, row: BenchmarkSubmissionTable) {
  await db.insertInto('benchmark_submissions').values(row).execute();
}

/** How many benchmarks the labeler submitted in the project since `since`, and their mean score. */
export async function labelerRecord(db: Executor, projectId: string, labeler: string, since: string) {
  const row = await db
    .selectFrom('benchmark_submissions')
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.avg<number | string | null>('score').as('avg')])
    .where('project_id', '=', projectId)
    .where('labeler', '=', labeler)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), average: row.avg === null ? null : Number(row.avg) };
}

/** How many benchmarks the labeler submitted and how many tasks they submitted out of a stage. */
export async function workedCount(db: Executor, projectId: string, stageId: string, labeler: string) {
  const [bench, history] = await Promise.all([
    db
      .selectFrom('benchmark_submissions')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('project_id', '=', projectId)
      .where('labeler', '=', labeler)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('task_history')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('project_id', '=', projectId)
      .where('stage_id', '=', stageId)
      .where('completed_by', '=', labeler)
      .executeTakeFirstOrThrow(),
  ]);
  return Number(bench.n) + Number(history.n);
}

export function findResume(db: Executor, projectId: string, labeler: string) {
  return db
    .selectFrom('benchmark_resumes')
    .select('resumed_at')
    .where('project_id', '=', projectId)
    .where('labeler', '=', labeler)
    .executeTakeFirst();
}

export async function putResume(db: Executor, projectId: string, labeler: string, at: string, by: string) {
  await db.deleteFrom('benchmark_resumes').where('project_id', '=', projectId).where('labeler', '=', labeler).execute();
  await db
    .insertInto('benchmark_resumes')
    .values({ project_id: projectId, labeler, resumed_at: at, resumed_by: by })
    .execute();
}

export function findHandoutOfTask(db: Executor, taskId: string, labeler: string) {
  return db
    .selectFrom('benchmark_handouts')
    .selectAll()
    .where('task_id', '=', taskId)
    .where('labeler', '=', labeler)
    .executeTakeFirst();
}

/**
 * Forgets what a project's benchmarks measured (benchmarking turned off, as the original does):
 * every submission with its score, who is working which benchmark, and the cutoff's resumes.
 * The benchmarks and their references stay. Answers the submissions deleted.
 */
export async function forgetMeasurements(db: Executor, projectId: string): Promise<number> {
  const gone = await db.deleteFrom('benchmark_submissions').where('project_id', '=', projectId).executeTakeFirst();
  await db.deleteFrom('benchmark_handouts').where('project_id', '=', projectId).execute();
  await db.deleteFrom('benchmark_resumes').where('project_id', '=', projectId).execute();
  return Number(gone.numDeletedRows);
}
