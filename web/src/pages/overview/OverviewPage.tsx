import { useState } from 'react';
import { useOutletContext } from 'react-router';
import {
  type MetricName,
  type Metrics,
  type OverviewFilter,
  type PerformanceRow,
  useMetric,
  usePerformance,
} from '../../api/metrics';
import type { Project, Stage } from '../../api/types';
import { Empty, Loading } from '../../components/States';
import { ErrorNotice } from '../../components/ErrorNotice';
import { sortByFlow } from '../workflow/flow-order';
import { Chart, type ChartOption } from './Chart';
import { OverviewFilters } from './OverviewFilters';
import { PerformanceTable } from './PerformanceTable';
import './overview.css';

const bars = (names: string[], values: number[], name = 'Tasks'): ChartOption => ({
  tooltip: {},
  grid: { left: 48, right: 16, top: 16, bottom: 48 },
  xAxis: { type: 'category', data: names, axisLabel: { interval: 0, rotate: names.length > 5 ? 30 : 0 } },
  yAxis: { type: 'value', minInterval: 1 },
  series: [{ type: 'bar', name, data: values, itemStyle: { color: '#1f4fd1' } }],
});

const pie = (entries: [string, number][]): ChartOption => ({
  tooltip: {},
  legend: { bottom: 0 },
  series: [{ type: 'pie', radius: ['35%', '65%'], data: entries.map(([name, value]) => ({ name, value })) }],
});

const seconds = (ms: number | null) => (ms === null ? 0 : Math.round(ms / 100) / 10);
const words = (pairs: [string, number][]) => pairs.map(([k, v]) => `${k} ${v}`).join(', ');

/** Each metric's chart and its words, or why there is nothing to draw. */
const DRAW: {
  [M in MetricName]: {
    title: string;
    empty?: string;
    /**
     * The chart, its figures in words, and optionally a line saying what it counts; `stages`
     * (the workflow) puts per-stage figures in the order of the flow.
     */
    draw: (m: Metrics[M], stages: readonly Stage[]) => [ChartOption, string, string?] | undefined;
  };
} = {
  LabelStageGroups: {
    title: 'Tasks per stage',
    draw: (m, stages) => {
      const pairs = sortByFlow(m, stages, (s) => s.stageId).map((s): [string, number] => [
        s.stageName || s.stageId,
        s.count,
      ]);
      return [
        bars(
          pairs.map((p) => p[0]),
          pairs.map((p) => p[1]),
        ),
        `Tasks per stage: ${words(pairs)}`,
      ];
    },
  },
  TimePerTask: {
    title: 'Time per task (seconds)',
    empty: 'No data yet: time is counted when people submit or review work.',
    // Stages nobody spent time in (Start, Logic...) would draw an empty axis: only timed ones.
    draw: (m, stages) => {
      const timed = sortByFlow(m.stages, stages, (s) => s.stageId).filter((s) => s.count > 0 && (s.average ?? 0) > 0);
      if (timed.length === 0) return undefined;
      const pairs = timed.map((s): [string, number] => [s.stageName || s.stageId, seconds(s.average)]);
      return [
        bars(
          pairs.map((p) => p[0]),
          pairs.map((p) => p[1]),
          'Average s',
        ),
        `Average seconds per stage: ${words(pairs)}`,
      ];
    },
  },
  AnnotationStatus: {
    title: 'Status',
    draw: (m) => {
      const pairs = Object.entries(m).filter(([, v]) => v > 0);
      return pairs.length ? [pie(pairs), `Tasks by status: ${words(pairs)}`] : undefined;
    },
  },
  AnswerDistribution: {
    title: 'Answers per question',
    draw: (m) => {
      const first = m.classifications.find((c) => c.total > 0);
      if (!first) return undefined;
      const pairs = first.answers.slice(0, 12).map((a): [string, number] => [a.label ?? a.value, a.count]);
      return [
        bars(
          pairs.map((p) => p[0]),
          pairs.map((p) => p[1]),
          'Answers',
        ),
        `${first.title}: ${words(pairs)}`,
        `Question: ${first.title}`,
      ];
    },
  },
  ConsensusRanges: {
    title: 'Consensus scores',
    draw: (m) => {
      if (!m.some((r) => r.count > 0)) return undefined;
      const pairs = m.map((r): [string, number] => [`${r.from}-${r.to}%`, r.count]);
      return [
        bars(
          pairs.map((p) => p[0]),
          pairs.map((p) => p[1]),
        ),
        `Tasks per score range: ${words(pairs)}`,
      ];
    },
  },
  AssetSize: {
    title: 'Asset types',
    draw: (m) => {
      const pairs = m.fileTypes.map((t): [string, number] => [t.type, t.count]);
      return pairs.length ? [pie(pairs), `Assets by file type: ${words(pairs)}`] : undefined;
    },
  },
};

function MetricCard<M extends MetricName>({ project, metric }: { project: Project; metric: M }) {
  const q = useMetric(project._id, metric);
  const { title, draw, empty = 'Nothing to show yet.' } = DRAW[metric];
  const drawn = q.data === undefined ? undefined : draw(q.data, project.stages);
  return (
    <section className="card metric" aria-label={title}>
      <h2>{title}</h2>
      {q.isPending && <Loading what={title.toLowerCase()} />}
      {q.isError && <ErrorNotice error={q.error} onRetry={() => void q.refetch()} />}
      {q.data !== undefined && !drawn && <Empty title={empty} />}
      {drawn?.[2] && <p className="metric-caption">{drawn[2]}</p>}
      {drawn && <Chart option={drawn[0]} summary={drawn[1]} />}
    </section>
  );
}

const METRICS: MetricName[] = [
  'LabelStageGroups',
  'AnnotationStatus',
  'TimePerTask',
  'AnswerDistribution',
  'ConsensusRanges',
  'AssetSize',
];

/** Work per person from the performance report, submitted and reviewed stacked: the chart that follows the filter. */
function PeopleChart({ rows }: { rows: PerformanceRow[] }) {
  const per = new Map<string, { submitted: number; reviewed: number }>();
  for (const r of rows) {
    const n = per.get(r.user) ?? { submitted: 0, reviewed: 0 };
    per.set(r.user, { submitted: n.submitted + r.submitted, reviewed: n.reviewed + r.reviewed });
  }
  const people = [...per].filter(([, n]) => n.submitted + n.reviewed > 0);
  if (people.length === 0) return <Empty title="No work by people in this time and batch yet." />;
  const names = people.map((p) => p[0]);
  const option: ChartOption = {
    ...bars(names, []),
    grid: { left: 48, right: 16, top: 16, bottom: 72 },
    legend: { bottom: 0, data: ['Submitted', 'Reviewed'] },
    series: [
      {
        type: 'bar',
        stack: 'done',
        name: 'Submitted',
        data: people.map((p) => p[1].submitted),
        itemStyle: { color: '#1f4fd1' },
      },
      {
        type: 'bar',
        stack: 'done',
        name: 'Reviewed',
        data: people.map((p) => p[1].reviewed),
        itemStyle: { color: '#12b76a' },
      },
    ],
  };
  return (
    <Chart
      option={option}
      summary={`Tasks submitted or reviewed per person: ${words(people.map(([u, n]) => [u, n.submitted + n.reviewed]))}`}
    />
  );
}

/**
 * The project at a glance: the six metrics of the contract, refreshed every half minute, and
 * the performance per person. The time and batch filter applies to what the API can filter:
 * the performance report (table and the per-person chart); the metrics endpoint takes no filter.
 */
export default function OverviewPage() {
  const project = useOutletContext<Project>();
  const [filter, setFilter] = useState<OverviewFilter>({});
  const performance = usePerformance(project._id, filter);
  const filtered = filter.interval !== undefined || filter.batches !== undefined;
  return (
    <div>
      <h1>Overview</h1>
      <OverviewFilters project={project} onChange={setFilter} />
      <section className="card" aria-labelledby="performance-title">
        <h2 id="performance-title">Performance</h2>
        {performance.isPending && <Loading what="the performance" />}
        {performance.isError && <ErrorNotice error={performance.error} onRetry={() => void performance.refetch()} />}
        {performance.data && (
          <div className="performance">
            <div className="performance-chart" role="group" aria-label="Work per person">
              <PeopleChart rows={performance.data.performance} />
            </div>
            <div className="table-scroll">
              <PerformanceTable rows={performance.data.performance} />
            </div>
          </div>
        )}
      </section>
      <h2 className="metrics-title">The project now</h2>
      <p className="muted">
        {filtered
          ? 'These charts count the whole project: the metrics take no time or batch filter.'
          : 'These charts count the whole project as it is now.'}
      </p>
      <div className="metrics">
        {METRICS.map((m) => (
          <MetricCard key={m} project={project} metric={m} />
        ))}
      </div>
    </div>
  );
}
