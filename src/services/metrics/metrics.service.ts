import type { AppContext } from '../../context.js';
import { invalidField } from '../../errors.js';
import type { CategorySchema } from '../../schemas/category-schema.js';
import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import { assetProfile, SIZE_BOUNDS } from '../../store/repositories/metrics-assets.repository.js';
import * as answers from '../../store/repositories/metrics-answers.repository.js';
import * as repo from '../../store/repositories/metrics.repository.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { parseJson } from '../../stored-json.js';

/*
 * GET /{projectId}/overview/{metric}: the six overview metrics of DECISIONS section 7. Each is
 * a handful of aggregate queries over indexes or figures kept as data is written (see the
 * repositories); this file names the stages and schemaIds, fills in zeros and shapes the answer,
 * which is `{data: {<metric>: <value>}}`.
 */

export const METRICS = [
  'LabelStageGroups',
  'TimePerTask',
  'AnnotationStatus',
  'AnswerDistribution',
  'ConsensusRanges',
  'AssetSize',
] as const;
export type Metric = (typeof METRICS)[number];

interface ProjectFacts {
  id: string;
  engine: AppContext['store']['engine'];
  stages: Stage[];
  schema: CategorySchema;
}

/** Metric names are matched exactly, then without regard to case. */
function metricNamed(raw: string): Metric {
  const hit = METRICS.find((m) => m === raw) ?? METRICS.find((m) => m.toLowerCase() === raw.toLowerCase());
  if (!hit) throw invalidField('metric', `unknown metric "${raw.slice(0, 64)}"; use one of ${METRICS.join(', ')}`);
  return hit;
}

export async function projectMetric(ctx: AppContext, p: Principal, projectId: string, rawMetric: string) {
  const metric = metricNamed(rawMetric);
  const db = ctx.store.db;
  const { row } = await loadProject(db, p, projectId, 'readAll');
  const facts: ProjectFacts = {
    id: row.id,
    engine: ctx.store.engine,
    stages: parseJson<Stage[]>(row.stages, []),
    schema: parseJson<CategorySchema>(row.category_schema, { tools: [], classifications: [], relations: [] }),
  };
  return { [metric]: await COMPUTE[metric](db, facts) };
}

const COMPUTE: Record<Metric, (db: Executor, f: ProjectFacts) => Promise<unknown>> = {
  LabelStageGroups: labelStageGroups,
  TimePerTask: timePerTask,
  AnnotationStatus: annotationStatus,
  AnswerDistribution: answerDistribution,
  ConsensusRanges: consensusRanges,
  AssetSize: assetSize,
};

/** Workflow stages in order, then stages that only the data still names (removed since). */
function stagesWith(f: ProjectFacts, seen: Iterable<string>) {
  const known = f.stages.map((s) => ({ stageId: s.id, stageName: s.name ?? s.id, type: s.type as string | null }));
  const extra = [...new Set(seen)]
    .filter((id) => !f.stages.some((s) => s.id === id))
    .sort()
    .map((id) => ({ stageId: id, stageName: id, type: null }));
  return [...known, ...extra];
}

async function labelStageGroups(db: Executor, f: ProjectFacts) {
  const counts = await repo.tasksPerStage(db, f.id);
  return stagesWith(f, counts.keys()).map((s) => ({ ...s, count: counts.get(s.stageId) ?? 0 }));
}

async function annotationStatus(db: Executor, f: ProjectFacts) {
  const counts = await repo.tasksPerStatus(db, f.id);
  return {
    TODO: counts.get('TODO') ?? 0,
    Completed: counts.get('Completed') ?? 0,
    Archived: counts.get('Archived') ?? 0,
  };
}

interface DurationStats {
  count: number;
  average: number | null;
  median: number | null;
  p90: number | null;
}

/**
 * percentile_cont: linear interpolation between sorted values k and k + 1, k = floor(p * (n - 1)).
 * Above the median they are read from the top (descending), so no walk passes the middle.
 */
async function percentile(db: Executor, f: ProjectFacts, stageId: string | undefined, n: number, p: number) {
  const position = p * (n - 1);
  const k = Math.floor(position);
  let low: number;
  let high: number;
  if (p <= 0.5) {
    const values = await repo.durationsAt(db, f.id, stageId, { offset: k, limit: 2, descending: false });
    low = values[0] ?? 0;
    high = values[1] ?? low;
  } else {
    const top = Math.min(k + 1, n - 1);
    const values = await repo.durationsAt(db, f.id, stageId, {
      offset: n - 1 - top,
      limit: top - k + 1,
      descending: true,
    });
    high = values[0] ?? 0;
    low = values[values.length - 1] ?? high;
  }
  return Math.round(low + (high - low) * (position - k));
}

async function durationStats(db: Executor, f: ProjectFacts, stageId: string | undefined, n: number, total: number) {
  if (n === 0) return { count: 0, average: null, median: null, p90: null } satisfies DurationStats;
  const [median, p90] = await Promise.all([percentile(db, f, stageId, n, 0.5), percentile(db, f, stageId, n, 0.9)]);
  return { count: n, average: Math.round(total / n), median, p90 } satisfies DurationStats;
}

/** Over history entries of Label and Review stages: one entry = one person's pass on a task. */
async function timePerTask(db: Executor, f: ProjectFacts) {
  const totals = await repo.durationTotals(db, f.id);
  const byStage = new Map(totals.map((r) => [r.stage_id, { n: Number(r.n), total: Number(r.total ?? 0) }]));
  const n = totals.reduce((sum, r) => sum + Number(r.n), 0);
  const total = totals.reduce((sum, r) => sum + Number(r.total ?? 0), 0);
  const timed = stagesWith(f, byStage.keys()).filter(
    (s) => byStage.has(s.stageId) || repo.TIMED_STAGE_TYPES.includes(s.type ?? ''),
  );
  const stages = await Promise.all(
    timed.map(async (s) => {
      const t = byStage.get(s.stageId) ?? { n: 0, total: 0 };
      return { ...s, ...(await durationStats(db, f, s.stageId, t.n, t.total)) };
    }),
  );
  return { ...(await durationStats(db, f, undefined, n, total)), stages };
}

async function answerDistribution(db: Executor, f: ProjectFacts) {
  const [values, tools] = await Promise.all([
    answers.classificationAnswerCounts(db, f.engine, f.id),
    answers.toolObjectCounts(db, f.id),
  ]);
  const ontology = f.schema.classifications ?? [];
  const ids = [...ontology.map((c) => c.schemaId), ...[...new Set(values.map((v) => v.sid))].sort()];
  const classifications = [...new Set(ids)].map((schemaId) => {
    const c = ontology.find((o) => o.schemaId === schemaId);
    const rows = values.filter((v) => v.sid === schemaId);
    const labels = new Map((c?.options ?? []).map((o) => [o.schemaId, o.value]));
    return {
      schemaId,
      title: c?.title ?? null,
      total: rows[0]?.total ?? 0,
      distinctValues: rows[0]?.distinct_values ?? 0,
      answers: rows.map((r) => ({ value: r.v, count: r.n, ...(labels.has(r.v) ? { label: labels.get(r.v) } : {}) })),
    };
  });
  const toolDefs = f.schema.tools ?? [];
  const counts = new Map(tools.map((t) => [t.sid, t.n]));
  const toolIds = [...new Set([...toolDefs.map((t) => t.schemaId), ...[...counts.keys()].sort()])];
  return {
    classifications,
    tools: toolIds.map((schemaId) => {
      const t = toolDefs.find((d) => d.schemaId === schemaId);
      return { schemaId, title: t?.title ?? null, tool: t?.tool ?? null, count: counts.get(schemaId) ?? 0 };
    }),
  };
}

async function consensusRanges(db: Executor, f: ProjectFacts) {
  const counts = new Map((await repo.consensusBuckets(db, f.id)).map((r) => [Number(r.bucket), Number(r.n)]));
  return Array.from({ length: 10 }, (_, i) => ({ from: i * 10, to: i * 10 + 10, count: counts.get(i) ?? 0 }));
}

function sizeLabel(bucket: number | null): string {
  if (bucket === null) return 'unknown';
  const low = bucket === 0 ? 0 : (SIZE_BOUNDS[bucket - 1] as number);
  const high = SIZE_BOUNDS[bucket];
  return high === undefined ? `${low}+` : `${low}-${high - 1}`;
}

/** Counts per size bucket and per extension, from the per-(bucket, extension) counts. */
async function assetSize(db: Executor, f: ProjectFacts) {
  const rows = await assetProfile(db, f.id);
  const sizes = new Map<string, { wb: number | null; hb: number | null; count: number }>();
  const types = new Map<string, number>();
  for (const r of rows) {
    const key = `${r.wb}x${r.hb}`;
    const size = sizes.get(key) ?? { wb: r.wb, hb: r.hb, count: 0 };
    size.count += r.n;
    sizes.set(key, size);
    types.set(r.ext, (types.get(r.ext) ?? 0) + r.n);
  }
  // Known buckets from small to large, unknown ones last; types by count, then name.
  const order = (b: number | null) => (b === null ? Number.MAX_SAFE_INTEGER : b);
  const sorted = [...sizes.values()].sort((a, b) => order(a.wb) - order(b.wb) || order(a.hb) - order(b.hb));
  const byCount = [...types.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return {
    sizes: sorted.map((s) => ({ width: sizeLabel(s.wb), height: sizeLabel(s.hb), count: s.count })),
    fileTypes: byCount.map(([type, count]) => ({ type, count })),
  };
}
