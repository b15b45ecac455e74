import { useOutletContext } from 'react-router';
import { type MetricName, type Metrics, useMetric } from '../../api/metrics';
import type { Project } from '../../api/types';
import { Empty, ErrorNotice, Loading } from '../../components/States';
import { Chart, type ChartOption } from './Chart';

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
const DRAW: { [M in MetricName]: { title: string; draw: (m: Metrics[M]) => [ChartOption, string] | undefined } } = {
  LabelStageGroups: {
    title: 'Tasks per stage',
    draw: (m) => {
      const pairs = m.map((s): [string, number] => [s.stageName || s.stageId, s.count]);
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
    draw: (m) => {
      if (m.count === 0) return undefined;
      const pairs = m.stages.map((s): [string, number] => [s.stageName || s.stageId, seconds(s.average)]);
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

function MetricCard<M extends MetricName>({ projectId, metric }: { projectId: string; metric: M }) {
  const q = useMetric(projectId, metric);
  const { title, draw } = DRAW[metric];
  const drawn = q.data === undefined ? undefined : draw(q.data);
  return (
    <section className="card metric" aria-label={title}>
      <h2>{title}</h2>
      {q.isPending && <Loading what={title.toLowerCase()} />}
      {q.isError && <ErrorNotice error={q.error} onRetry={() => void q.refetch()} />}
      {q.data !== undefined && !drawn && <Empty title="Nothing to show yet." />}
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

/** The project at a glance: the six metrics of the contract, refreshed every half minute. */
export default function OverviewPage() {
  const project = useOutletContext<Project>();
  return (
    <div>
      <h1>Overview</h1>
      <div className="metrics">
        {METRICS.map((m) => (
          <MetricCard key={m} projectId={project._id} metric={m} />
        ))}
      </div>
    </div>
  );
}
