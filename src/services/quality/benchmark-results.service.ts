import type { AppContext } from '../../context.js';
import { invalidField } from '../../errors.js';
import { labelerRecord, putResume } from '../../store/repositories/benchmark-queue.repository.js';
import { listSubmissions } from '../../store/repositories/benchmark.repository.js';
import { memberRolesOf } from '../../store/repositories/project.repository.js';
import { audit } from '../audit/audit.service.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';

/** GET /project/{id}/benchmarkSubmissions: every scored benchmark submission, for Managers only. */
export async function benchmarkSubmissions(ctx: AppContext, p: Principal, projectId: string, labeler?: string) {
  const { row } = await loadProject(ctx.store.db, p, projectId, 'manage');
  const rows = await listSubmissions(ctx.store.db, row.id, labeler?.toLowerCase());
  return {
    submissions: rows.map((r) => ({
      _id: r.id,
      taskId: r.task_id,
      labeler: r.labeler,
      score: r.score,
      detail: JSON.parse(r.detail) as unknown,
      createdAt: r.created_at,
    })),
  };
}

/**
 * POST /project/{id}/benchmarks/resume: a labeler stopped by the cutoff gets tasks again; their
 * average counts only benchmarks submitted from now on. Someone who is neither a member of the
 * project nor submitted a benchmark in it is refused: a 400 naming `labeler`, nothing written.
 */
export async function resumeLabeler(ctx: AppContext, p: Principal, projectId: string, labeler: string) {
  const email = labeler.toLowerCase();
  const { row } = await loadProject(ctx.store.db, p, projectId, 'manage');
  const member = (await memberRolesOf(ctx.store.db, [row.id], email)).has(row.id);
  if (!member && (await labelerRecord(ctx.store.db, row.id, email, '')).count === 0) {
    throw invalidField('labeler', `${email} is not a member of this project and submitted no benchmark in it`);
  }
  const at = new Date(ctx.clock.now()).toISOString();
  await ctx.store.db.transaction().execute(async (trx) => {
    await putResume(trx, row.id, email, at, p.email);
    await audit(trx, ctx.clock, p, {
      operation: 'benchmark.resume',
      targetType: 'member',
      targetId: email,
      projectId: row.id,
    });
  });
  return { labeler: email, resumedAt: at };
}
