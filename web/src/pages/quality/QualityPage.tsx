import { type ReactNode, useState } from 'react';
import { useOutletContext } from 'react-router';
import type { OverviewFilter } from '../../api/metrics';
import { type QualityReport, useQualityReport } from '../../api/quality';
import type { Project } from '../../api/types';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Empty, Loading } from '../../components/States';
import { Chart, type ChartOption } from '../overview/Chart';
import { OverviewFilters } from '../overview/OverviewFilters';
import '../overview/overview.css';
import './quality.css';

const BLUE = '#1f4fd1';
const percent = (rate: number | null) => (rate === null ? '–' : `${Math.round(rate * 1000) / 10} %`);
const fixed = (v: number | null, places = 2) => (v === null ? '–' : v.toFixed(places));
const counted = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

function Card({ title, caption, children }: { title: string; caption: string; children: ReactNode }) {
  return (
    <section className="card quality-card" aria-label={title}>
      <h2>{title}</h2>
      <p className="muted">{caption}</p>
      {children}
    </section>
  );
}

function Table({ caption, head, rows }: { caption: string; head: string[]; rows: (string | number)[][] }) {
  return (
    <div className="table-scroll">
      <table className="quality-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {head.map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={String(r[0])}>
              {r.map((cell, i) =>
                i === 0 ? (
                  <th key={i} scope="row">
                    {cell}
                  </th>
                ) : (
                  <td key={i}>{cell}</td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Each labeler's average benchmark score per day, one line each, and their totals. */
function BenchmarkScores({ list }: { list: QualityReport['benchmarks'] }) {
  if (list.length === 0) return <Empty title="No benchmark submissions in this time and batch." />;
  const days = [...new Set(list.flatMap((l) => l.days.map((d) => d.day)))].sort();
  const option: ChartOption = {
    tooltip: { trigger: 'axis' },
    legend: { bottom: 0 },
    grid: { left: 48, right: 16, top: 16, bottom: 56 },
    xAxis: { type: 'category', data: days },
    yAxis: { type: 'value', min: 0, max: 100, name: 'Score' },
    series: list.map((l) => ({
      type: 'line',
      name: l.labeler,
      connectNulls: true,
      data: days.map((day) => l.days.find((d) => d.day === day)?.averageScore ?? null),
    })),
  };
  return (
    <>
      <Chart
        option={option}
        summary={`Average benchmark score per day: ${list.map((l) => `${l.labeler} ${l.averageScore}`).join(', ')}`}
      />
      <Table
        caption="Benchmark scores per labeler"
        head={['Labeler', 'Benchmarks', 'Average score']}
        rows={list.map((l) => [l.labeler, l.benchmarks, fixed(l.averageScore)])}
      />
    </>
  );
}

/** Each agreement measure's short and long name. */
const MEASURE_NAMES = {
  iou: ['IoU', 'Mean IoU'],
  dice: ['Dice', 'Mean Dice'],
  kappa: ['kappa', "Cohen's kappa"],
} as const;

/** Agreement per ontology class: IoU for objects, Dice for voxel classes, Cohen's kappa for questions. */
function Agreement({ list }: { list: QualityReport['agreement'] }) {
  if (list.length === 0) return <Empty title="No consensus rounds decided in this time and batch." />;
  const label = (a: (typeof list)[number]) => `${a.title} (${MEASURE_NAMES[a.measure][0]})`;
  const option: ChartOption = {
    tooltip: {},
    grid: { left: 48, right: 16, top: 16, bottom: 48 },
    xAxis: { type: 'category', data: list.map(label), axisLabel: { interval: 0 } },
    yAxis: { type: 'value', min: (v: { min: number }) => Math.min(0, v.min), max: 1 },
    series: [{ type: 'bar', name: 'Agreement', data: list.map((a) => a.value ?? 0), itemStyle: { color: BLUE } }],
  };
  return (
    <>
      <Chart
        option={option}
        summary={`Agreement per class: ${list.map((a) => `${label(a)} ${fixed(a.value)}`).join(', ')}`}
      />
      <Table
        caption="Consensus agreement per class"
        head={['Class', 'Measure', 'Agreement', 'Same answer', 'Compared']}
        rows={list.map((a) => [
          a.title,
          MEASURE_NAMES[a.measure][1],
          fixed(a.value),
          a.measure === 'kappa' ? percent(a.observed) : '–',
          counted(a.measures, a.measure === 'kappa' ? 'pair' : 'round'),
        ])}
      />
    </>
  );
}

/** Share of reviews that rejected, per day, and per reviewer. */
function Reviews({ reviews }: { reviews: QualityReport['reviews'] }) {
  if (reviews.accepted + reviews.rejected === 0) return <Empty title="No reviews in this time and batch." />;
  const option: ChartOption = {
    tooltip: {},
    grid: { left: 48, right: 16, top: 16, bottom: 48 },
    xAxis: { type: 'category', data: reviews.days.map((d) => d.day) },
    yAxis: { type: 'value', min: 0, max: 100, name: '%' },
    series: [
      {
        type: 'bar',
        name: 'Rejected %',
        data: reviews.days.map((d) => (d.rejectionRate === null ? 0 : Math.round(d.rejectionRate * 1000) / 10)),
        itemStyle: { color: '#d92d20' },
      },
    ],
  };
  return (
    <>
      <Chart
        option={option}
        summary={`Rejection rate per day: ${reviews.days.map((d) => `${d.day} ${percent(d.rejectionRate)}`).join(', ')}`}
      />
      <Table
        caption="Reviews per reviewer"
        head={['Reviewer', 'Accepted', 'Rejected', 'Rejection rate']}
        rows={[
          ...reviews.reviewers.map((r) => [r.reviewer, r.accepted, r.rejected, percent(r.rejectionRate)]),
          ['Everyone', reviews.accepted, reviews.rejected, percent(reviews.rejectionRate)],
        ]}
      />
    </>
  );
}

/** Issues per error code of the project's errorSchema. */
function ErrorCodes({ codes }: { codes: QualityReport['errorCodes'] }) {
  const shown = codes.codes.filter((c) => c.declared || c.issues > 0);
  if (shown.length === 0) {
    return (
      <Empty title="This project declares no error codes: issues are shown per code once its errorSchema lists them." />
    );
  }
  const option: ChartOption = {
    tooltip: {},
    grid: { left: 48, right: 16, top: 16, bottom: 48 },
    xAxis: { type: 'category', data: shown.map((c) => c.code), axisLabel: { interval: 0 } },
    yAxis: { type: 'value', minInterval: 1 },
    series: [{ type: 'bar', name: 'Issues', data: shown.map((c) => c.issues), itemStyle: { color: BLUE } }],
  };
  return (
    <>
      {!codes.enabled && <p className="muted">Error codes are turned off in Settings: new issues carry none.</p>}
      <Chart
        option={option}
        summary={`Issues per error code: ${shown.map((c) => `${c.code} ${c.issues}`).join(', ')}`}
      />
      {codes.withoutCode > 0 && <p className="muted">{codes.withoutCode} issues carry no error code.</p>}
    </>
  );
}

/**
 * The project's quality at a glance, for Managers: benchmark scores over time, consensus
 * agreement per class, review rejection rates and issues per error code, all within the chosen
 * time range and batch (docs/quality.md).
 */
export default function QualityPage() {
  const project = useOutletContext<Project>();
  const [filter, setFilter] = useState<OverviewFilter>({});
  const q = useQualityReport(project._id, filter);
  return (
    <div>
      <h1>Quality</h1>
      <OverviewFilters project={project} onChange={setFilter} label="Quality filters" />
      {q.isPending && <Loading what="the quality figures" />}
      {q.isError && <ErrorNotice error={q.error} onRetry={() => void q.refetch()} />}
      {q.data && (
        <div className="quality">
          <Card title="Benchmark scores" caption="Each labeler's average score (0 to 100) on benchmark tasks, per day.">
            <BenchmarkScores list={q.data.benchmarks} />
          </Card>
          <Card
            title="Consensus agreement"
            caption="Per class: mean IoU of the copies' objects (0 to 1), Cohen's kappa of their answers to questions (1 agrees fully, 0 no better than chance)."
          >
            <Agreement list={q.data.agreement} />
          </Card>
          <Card title="Review rejections" caption="Share of reviews that rejected the work, per day and per reviewer.">
            <Reviews reviews={q.data.reviews} />
          </Card>
          <Card title="Issues per error code" caption="Issues opened in this time and batch, per error code.">
            <ErrorCodes codes={q.data.errorCodes} />
          </Card>
        </div>
      )}
    </div>
  );
}
