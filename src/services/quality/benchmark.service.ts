import type { AppContext } from '../../context.js';
import { invalid, invalidField, notFound, type FieldError } from '../../errors.js';
import { isId } from '../../ids.js';
import type { CategorySchema } from '../../schemas/category-schema.js';
import type { Static } from 'typebox';
import type { MarkBenchmarksRequest, UnmarkBenchmarksRequest } from '../../schemas/benchmark.js';
import {
  deleteBenchmarks,
  findReference,
  putReferences,
  setTaskType,
  tasksToMark,
} from '../../store/repositories/benchmark.repository.js';
import { validateAnswer } from '../../workflow/answer.js';
import { audit } from '../audit/audit.service.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { parseJson } from '../../stored-json.js';

export const BENCHMARK_TYPE = 'benchmark';

type MarkInput = Static<typeof MarkBenchmarksRequest>;
type UnmarkInput = Static<typeof UnmarkBenchmarksRequest>;

/** The tasks named, in request order, each live in the project; a 400 naming each one that is not. */
async function namedTasks(ctx: AppContext, projectId: string, ids: readonly string[]) {
  const unique = [...new Set(ids)];
  const rows = await tasksToMark(ctx.store.db, projectId, unique);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const errors: FieldError[] = [];
  ids.forEach((id, i) => {
    if (!byId.has(id)) errors.push({ field: `tasks[${i}]`, message: `no task "${id}" in this project` });
  });
  if (errors.length) throw invalid(errors);
  return unique.map((id) => byId.get(id)!);
}

/**
 * POST /project/{id}/benchmarks (an extension): marks tasks as benchmarks, each with its
 * reference answer: the task's current answer, the answer given in the request, or the
 * pre-labels imported for it. Managers only. Every task is checked before anything is written.
 */
export async function markBenchmarks(ctx: AppContext, p: Principal, projectId: string, input: MarkInput) {
  const { row } = await loadProject(ctx.store.db, p, projectId, 'manage');
  const source = input.source ?? (input.answer ? 'given' : 'answer');
  if (source === 'given' && !input.answer) throw invalidField('answer', 'is required when source is "given"');
  if (source !== 'given' && input.answer) throw invalidField('source', 'must be "given" when an answer is sent');
  let given: string | undefined;
  if (input.answer) {
    const schema = parseJson<CategorySchema>(row.category_schema, { tools: [], classifications: [], relations: [] });
    const checked = validateAnswer(input.answer, schema, { submit: true });
    if (checked.errors.length) throw invalid(checked.errors);
    given = JSON.stringify(checked.value);
  }
  const tasks = await namedTasks(ctx, row.id, input.tasks);
  const errors: FieldError[] = [];
  tasks.forEach((t) => {
    const field = `tasks[${input.tasks.indexOf(t.id)}]`;
    if (t.type === 'consensus') errors.push({ field, message: 'a consensus copy cannot be a benchmark' });
    else if (source === 'prelabels' && t.is_pre_labeled !== 1)
      errors.push({ field, message: 'the task has no imported pre-labels' });
  });
  if (errors.length) throw invalid(errors);
  const now = new Date(ctx.clock.now()).toISOString();
  await ctx.store.db.transaction().execute(async (trx) => {
    const refs = tasks.map((t) => ({
      task_id: t.id,
      project_id: row.id,
      answer: given ?? t.answer,
      source,
      created_by: p.email,
      created_at: now,
      // A given answer has no layer; the task's own (its answer's or its pre-labels') is kept.
      medical_brush_data_url: source === 'given' ? null : t.medical_brush_data_url,
      brush_data_url: source === 'given' ? null : t.brush_data_url,
    }));
    await putReferences(trx, refs);
    await setTaskType(
      trx,
      tasks.map((t) => t.id),
      BENCHMARK_TYPE,
      now,
      p.email,
    );
    for (const t of tasks) {
      await audit(trx, ctx.clock, p, {
        operation: 'task.benchmark.mark',
        targetType: 'task',
        targetId: t.id,
        projectId: row.id,
        fields: ['isBenchmark', 'reference'],
      });
    }
  });
  return { benchmarks: tasks.map((t) => ({ taskId: t.id, isBenchmark: true, source })) };
}

/** DELETE /project/{id}/benchmarks: the tasks are ordinary again; their references and scores go. */
export async function unmarkBenchmarks(ctx: AppContext, p: Principal, projectId: string, input: UnmarkInput) {
  const { row } = await loadProject(ctx.store.db, p, projectId, 'manage');
  const tasks = await namedTasks(ctx, row.id, input.tasks);
  const marked = tasks.filter((t) => t.type === BENCHMARK_TYPE).map((t) => t.id);
  const now = new Date(ctx.clock.now()).toISOString();
  await ctx.store.db.transaction().execute(async (trx) => {
    await deleteBenchmarks(trx, marked);
    await setTaskType(trx, marked, 'default', now, p.email);
    for (const id of marked) {
      await audit(trx, ctx.clock, p, {
        operation: 'task.benchmark.unmark',
        targetType: 'task',
        targetId: id,
        projectId: row.id,
        fields: ['isBenchmark', 'reference'],
      });
    }
  });
  return { benchmarks: tasks.map((t) => ({ taskId: t.id, isBenchmark: false })) };
}

/** GET /project/{id}/benchmarks/{taskId}: a benchmark's reference, for Managers only. */
export async function getReference(ctx: AppContext, p: Principal, projectId: string, taskId: string) {
  const { row } = await loadProject(ctx.store.db, p, projectId, 'manage');
  const ref = isId(taskId) ? await findReference(ctx.store.db, taskId) : undefined;
  if (!ref || ref.project_id !== row.id) throw notFound('benchmark');
  return {
    benchmark: {
      taskId: ref.task_id,
      source: ref.source,
      reference: JSON.parse(ref.answer) as unknown,
      createdBy: ref.created_by,
      createdAt: ref.created_at,
    },
  };
}
