import type { Engine, Executor } from '../db.js';
import type { ProjectRow, TaskRow } from '../schema.js';

/*
 * Rows by their id, deleted ones included: for the callers that tell "deleted" from "gone" or
 * "moved on" themselves (a job whose task was deleted meanwhile, an answer to an old session).
 */

export async function taskById(db: Executor, id: string): Promise<TaskRow | undefined> {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A task known to exist (a row another names); throws when it does not. */
export async function existingTask(db: Executor, id: string): Promise<TaskRow> {
  return db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/**
 * A task known to exist, locked on PostgreSQL until the transaction ends: of two writers, the
 * second sees the first's move. Throws when it does not exist.
 */
export async function lockExistingTask(db: Executor, engine: Engine, id: string): Promise<TaskRow> {
  const q = db.selectFrom('tasks').selectAll().where('id', '=', id);
  return (engine === 'postgres' ? q.forUpdate() : q).executeTakeFirstOrThrow();
}

export async function projectById(db: Executor, id: string): Promise<ProjectRow | undefined> {
  return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
}
