import type { TaskHistoryEntry } from '../../api/tasks';

/** A duration in ms as a person reads it: "45 s", "3 min 5 s", "2 h 10 min". */
export function spoken(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return s % 60 ? `${min} min ${s % 60} s` : `${min} min`;
  const h = Math.floor(min / 60);
  return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '');

const TRIGGERS: Record<string, string> = {
  submit: 'submitted',
  forward: 'forwarded',
  requeue: 'requeued',
  webhook: 'sent on by the webhook',
  plugin: 'answered by the plugin',
};

/** What happened at one exit of a stage, in words. */
function what(e: TaskHistoryEntry): string {
  if (e.isSkipped) return 'skipped';
  if (e.reviewStatus) return e.reviewStatus.toLowerCase();
  return (e.trigger && TRIGGERS[e.trigger]) ?? 'moved on';
}

/** The stages the task went through, oldest first: who, where, when and for how long. */
export function TaskTimeline({ history, current }: { history: TaskHistoryEntry[]; current: string }) {
  return (
    <ol className="timeline" aria-label="History">
      {history.map((e) => (
        <li key={e._id} className="timeline-entry">
          <span className="timeline-stage">{e.stageName ?? e.stageId}</span>
          <span className="timeline-what">
            {what(e)} by {e.completedBy ?? 'the system'}
          </span>
          <time dateTime={e.completedAt}>{when(e.completedAt)}</time>
          <span className="timeline-duration">{spoken(e.duration)}</span>
        </li>
      ))}
      <li className="timeline-entry timeline-now">
        <span className="timeline-stage">{current}</span>
        <span className="timeline-what">now</span>
      </li>
    </ol>
  );
}
