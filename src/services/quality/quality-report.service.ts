import type { AppContext } from '../../context.js';
import type { CategorySchema, Classification } from '../../schemas/category-schema.js';
import {
  agreementCells,
  benchmarkDays,
  issueCodeSets,
  reviewDays,
  type AgreementCell,
} from '../../store/repositories/quality.repository.js';
import { parseJson } from '../../stored-json.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { errorCodeKey, errorCodesOf, type IssueErrorCode } from '../issues/issue-rules.js';
import { projectSettings } from '../projects/project-view.js';
import { readScope, type ScopeInput } from '../metrics/scope.js';

/*
 * POST /project/{id}/quality (an extension, Managers only): the Quality page's numbers over an
 * interval and batches. Each labeler's benchmark scores per day; consensus agreement per
 * ontology item (objects: mean IoU of the copies; questions: Cohen's kappa over every pair of
 * copies, earlier copy as the first rater); review decisions and rejection rates per reviewer
 * and per day; issues per error code of the project's errorSchema. See docs/quality.md.
 */

const round = (v: number, places = 4) => Math.round(v * 10 ** places) / 10 ** places;
const rate = (rejected: number, accepted: number) =>
  rejected + accepted === 0 ? null : round(rejected / (rejected + accepted));

function benchmarkSeries(days: Awaited<ReturnType<typeof benchmarkDays>>) {
  const byLabeler = new Map<string, typeof days>();
  for (const d of days) byLabeler.set(d.labeler, [...(byLabeler.get(d.labeler) ?? []), d]);
  return [...byLabeler]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([labeler, list]) => {
      const count = list.reduce((s, d) => s + d.count, 0);
      const total = list.reduce((s, d) => s + d.total, 0);
      return {
        labeler,
        benchmarks: count,
        averageScore: round(total / count, 2),
        days: list
          .sort((a, b) => (a.day < b.day ? -1 : 1))
          .map((d) => ({ day: d.day, benchmarks: d.count, averageScore: round(d.total / d.count, 2) })),
      };
    });
}

/**
 * Cohen's kappa of the pairs' answers: (observed - expected) / (1 - expected), the expected
 * agreement from each rater's own answer shares. Every answer the same on both sides: 1.
 */
export function cohensKappa(cells: readonly Pick<AgreementCell, 'answer_a' | 'answer_b' | 'n'>[]) {
  const n = cells.reduce((s, c) => s + c.n, 0);
  if (n === 0) return { kappa: null, observed: null };
  const first = new Map<string, number>();
  const second = new Map<string, number>();
  let agreeing = 0;
  for (const c of cells) {
    first.set(c.answer_a, (first.get(c.answer_a) ?? 0) + c.n);
    second.set(c.answer_b, (second.get(c.answer_b) ?? 0) + c.n);
    if (c.answer_a === c.answer_b) agreeing += c.n;
  }
  const observed = agreeing / n;
  let expected = 0;
  for (const [answer, k] of first) expected += (k / n) * ((second.get(answer) ?? 0) / n);
  const kappa = expected >= 1 ? 1 : (observed - expected) / (1 - expected);
  return { kappa: round(kappa), observed: round(observed) };
}

/** schemaId -> title and kind of every tool and question of the ontology. */
function ontologyNames(schema: CategorySchema) {
  const names = new Map<string, { title: string; tool: string }>();
  for (const t of schema.tools ?? []) names.set(t.schemaId, { title: t.title, tool: t.tool });
  const walk = (list: readonly Classification[] | undefined) => {
    for (const c of list ?? []) {
      names.set(c.schemaId, { title: c.title, tool: c.tool });
      walk(c.classifications);
      for (const o of c.options ?? []) walk(o.children);
    }
  };
  walk(schema.classifications);
  return names;
}

function agreementByItem(cells: AgreementCell[], schema: CategorySchema) {
  const names = ontologyNames(schema);
  const byItem = new Map<string, AgreementCell[]>();
  for (const c of cells)
    byItem.set(`${c.kind}\u0000${c.schema_id}`, [...(byItem.get(`${c.kind}\u0000${c.schema_id}`) ?? []), c]);
  // In ontology order: tools, then questions as nested; items since removed last.
  const order = [...names.keys()];
  const position = (id: string) => (order.includes(id) ? order.indexOf(id) : order.length);
  const items = [...byItem.values()].sort(
    (a, b) => position(a[0]!.schema_id) - position(b[0]!.schema_id) || (a[0]!.schema_id < b[0]!.schema_id ? -1 : 1),
  );
  return items.map((list) => {
    const { schema_id: schemaId, kind } = list[0] as AgreementCell;
    const name = names.get(schemaId);
    const base = { schemaId, title: name?.title ?? schemaId, tool: name?.tool ?? null };
    const measures = list.reduce((s, c) => s + c.n, 0);
    if (kind === 'tool') {
      const total = list.reduce((s, c) => s + c.total, 0);
      return {
        ...base,
        kind: 'object' as const,
        measure: name?.tool === 'medical-brush' ? ('dice' as const) : ('iou' as const),
        value: round(total / measures),
        observed: round(total / measures),
        measures,
      };
    }
    const { kappa, observed } = cohensKappa(list);
    return { ...base, kind: 'classification' as const, measure: 'kappa' as const, value: kappa, observed, measures };
  });
}

function reviewFigures(days: Awaited<ReturnType<typeof reviewDays>>) {
  const perDay = new Map<string, { accepted: number; rejected: number }>();
  const perReviewer = new Map<string, { accepted: number; rejected: number }>();
  for (const d of days) {
    for (const [map, key] of [
      [perDay, d.day],
      [perReviewer, d.reviewer],
    ] as const) {
      const sum = map.get(key) ?? { accepted: 0, rejected: 0 };
      sum.accepted += d.accepted;
      sum.rejected += d.rejected;
      map.set(key, sum);
    }
  }
  const accepted = days.reduce((s, d) => s + d.accepted, 0);
  const rejected = days.reduce((s, d) => s + d.rejected, 0);
  const sorted = <T>(m: Map<string, T>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    accepted,
    rejected,
    rejectionRate: rate(rejected, accepted),
    reviewers: sorted(perReviewer).map(([reviewer, s]) => ({
      reviewer,
      ...s,
      rejectionRate: rate(s.rejected, s.accepted),
    })),
    days: sorted(perDay).map(([day, s]) => ({ day, ...s, rejectionRate: rate(s.rejected, s.accepted) })),
  };
}

function errorCodeFigures(sets: { codes: string; n: number }[], errorSchema: unknown, enabled: boolean) {
  const declared = [...errorCodesOf(errorSchema)];
  const counts = new Map<string, number>(declared.map((c) => [c, 0]));
  let withoutCode = 0;
  for (const set of sets) {
    const codes = new Set(parseJson<IssueErrorCode[]>(set.codes, []).map(errorCodeKey));
    if (codes.size === 0) withoutCode += set.n;
    for (const code of codes) counts.set(code, (counts.get(code) ?? 0) + set.n);
  }
  return {
    enabled,
    codes: [...counts].map(([code, issues]) => ({ code, declared: declared.includes(code), issues })),
    withoutCode,
  };
}

export async function qualityReport(ctx: AppContext, p: Principal, projectId: string, input: ScopeInput) {
  const db = ctx.store.db;
  const { row } = await loadProject(db, p, projectId, 'manage');
  const scope = await readScope(db, row.id, input);
  const schema = parseJson<CategorySchema>(row.category_schema, { tools: [], classifications: [], relations: [] });
  const settings = projectSettings(row);
  const [marks, cells, reviews, issues] = await Promise.all([
    benchmarkDays(db, scope),
    agreementCells(db, scope),
    reviewDays(db, scope),
    issueCodeSets(db, scope),
  ]);
  return {
    interval: { from: scope.from ?? null, to: scope.to ?? null },
    benchmarks: benchmarkSeries(marks),
    agreement: agreementByItem(cells, schema),
    reviews: reviewFigures(reviews),
    errorCodes: errorCodeFigures(issues, settings.errorSchema, settings.errorCodesEnabled === true),
  };
}
