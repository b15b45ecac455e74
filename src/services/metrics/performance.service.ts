import type { AppContext } from '../../context.js';
import type { Stage } from '../../schemas/stage.js';
import { benchmarkFigures, issueFigures } from '../../store/repositories/performance.repository.js';
import { countedWorkFigures } from '../../store/repositories/work-count.repository.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { parseJson } from '../../stored-json.js';
import { readScope, type ScopeInput } from './scope.js';

/*
 * POST /performance/{projectId}: what each person did in each stage over an interval, from the
 * task history (every exit of a stage by a person is an entry: `submit` in Label stages,
 * `review` in Review stages with its decision, and the time reported with the work) and from
 * the issues they opened; and each labeler's benchmark submissions with their average score.
 * See docs/exports-and-metrics.md.
 */

export type PerformanceInput = ScopeInput;

export interface PerformanceRow {
  user: string;
  stageId: string;
  stageName: string;
  stageType: string | null;
  submitted: number;
  reviewed: number;
  accepted: number;
  rejected: number;
  timeSpent: number;
  issuesRaised: number;
}

function emptyRow(user: string, stageId: string, stage: Stage | undefined): PerformanceRow {
  return {
    user,
    stageId,
    stageName: stage?.name ?? stageId,
    stageType: stage?.type ?? null,
    submitted: 0,
    reviewed: 0,
    accepted: 0,
    rejected: 0,
    timeSpent: 0,
    issuesRaised: 0,
  };
}

export async function performance(ctx: AppContext, p: Principal, projectId: string, input: PerformanceInput) {
  const db = ctx.store.db;
  const { row } = await loadProject(db, p, projectId, 'readAll');
  const scope = await readScope(db, row.id, input);

  const stages = parseJson<Stage[]>(row.stages, []);
  const stageOf = (id: string) => stages.find((s) => s.id === id);
  const [work, issues, marks] = await Promise.all([
    countedWorkFigures(db, scope),
    issueFigures(db, scope),
    benchmarkFigures(db, scope),
  ]);
  const rows = new Map<string, PerformanceRow>();
  const rowFor = (user: string, stageId: string) => {
    const key = `${user}\u0000${stageId}`;
    let r = rows.get(key);
    if (!r) rows.set(key, (r = emptyRow(user, stageId, stageOf(stageId))));
    return r;
  };
  for (const w of work) {
    const r = rowFor(w.user, w.stage_id);
    // A removed stage keeps the name and type it had when the work was done.
    if (!stageOf(w.stage_id)) Object.assign(r, { stageName: w.stage_name, stageType: w.stage_type });
    Object.assign(r, {
      submitted: w.submitted,
      reviewed: w.reviewed,
      accepted: w.accepted,
      rejected: w.rejected,
      timeSpent: w.time_spent,
    });
  }
  for (const i of issues) rowFor(i.user, i.stage_id).issuesRaised = i.issues;
  // By person, then in workflow order (stages since removed last).
  const position = (id: string) => {
    const i = stages.findIndex((s) => s.id === id);
    return i < 0 ? stages.length : i;
  };
  const performance = [...rows.values()].sort((a, b) =>
    a.user < b.user ? -1 : a.user > b.user ? 1 : position(a.stageId) - position(b.stageId),
  );
  // Benchmarks are scored per person, not per stage: a list of their own (an extension).
  const benchmarks = marks
    .map((m) => ({ user: m.user, benchmarks: m.count, averageScore: Math.round(m.average * 100) / 100 }))
    .sort((a, b) => (a.user < b.user ? -1 : a.user > b.user ? 1 : 0));
  return {
    performance,
    benchmarks,
    interval: { from: scope.from ?? null, to: scope.to ?? null },
    total: performance.length,
  };
}
