import type { TaskIssue } from '../../api/tasks';
import { issuePin } from './TaskAsset';
import { when } from './TaskTimeline';

/** The task's issues, open first; each says where its pin is (red open, green resolved). */
export function TaskIssues({ issues }: { issues: TaskIssue[] }) {
  if (issues.length === 0) return <p className="muted">No issues were raised on this task.</p>;
  const open = issues.filter((i) => i.status !== 'Resolved').length;
  return (
    <>
      <p>
        {open} open, {issues.length - open} resolved. Pins on the image: red open, green resolved.
      </p>
      <ol className="issue-list">
        {issues.map((issue, i) => {
          const pin = issuePin(issue, i);
          return (
            <li key={issue._id} className={issue.status === 'Resolved' ? 'issue-resolved' : 'issue-open'}>
              <span className="issue-status">{issue.status}</span> <q>{issue.content}</q>
              <span className="muted">
                {' '}
                by {issue.createdBy}, {when(issue.createdAt)}
                {pin ? `, pinned at ${Math.round(pin.position[0])}, ${Math.round(pin.position[1])}` : ''}
                {issue.position && !pin ? `, at character ${issue.position}` : ''}
                {issue.comments.length > 0
                  ? `, ${issue.comments.length} comment${issue.comments.length === 1 ? '' : 's'}`
                  : ''}
              </span>
            </li>
          );
        })}
      </ol>
    </>
  );
}
