import type { PerformanceRow } from '../../api/metrics';
import { Empty } from '../../components/States';

const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;
/** Time per task the person finished in the stage (submitted or reviewed). */
const perTask = (r: PerformanceRow) => {
  const n = r.submitted + r.reviewed;
  return n ? `${Math.round(r.timeSpent / n / 1000)} s` : '–';
};

/** What each person did in each stage: the figures of `POST /performance`, one row per person and stage. */
export function PerformanceTable({ rows }: { rows: PerformanceRow[] }) {
  if (rows.length === 0) return <Empty title="No work by people in this time and batch yet." />;
  return (
    <table className="table compact performance-table" aria-label="Performance per person and stage">
      <thead>
        <tr>
          <th scope="col">Person</th>
          <th scope="col">Stage</th>
          <th scope="col">Submitted</th>
          <th scope="col">Reviewed</th>
          <th scope="col">Accepted</th>
          <th scope="col">Rejected</th>
          <th scope="col">Time spent</th>
          <th scope="col">Per task</th>
          <th scope="col">Issues raised</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={`${r.user}:${r.stageId}`}>
            <th scope="row">{r.user}</th>
            <td>{r.stageName || r.stageId}</td>
            <td>{r.submitted}</td>
            <td>{r.reviewed}</td>
            <td>{r.accepted}</td>
            <td>{r.rejected}</td>
            <td>{minutes(r.timeSpent)}</td>
            <td>{perTask(r)}</td>
            <td>{r.issuesRaised}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
