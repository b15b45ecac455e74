import type { TaskIssue } from '../../api/tasks';
import type { EditorObject } from '../../editor/core/answer';
import type { Ontology } from '../../editor/core/ontology';
import { objectName } from '../../work/Issues';
import { IssueThread } from '../../work/IssueThread';
import { issuePins } from '../../work/pins';
import { when } from './TaskTimeline';

/**
 * The task's issues in the order their pins are numbered (red open, green resolved), each with
 * where it points and its thread of answers.
 */
export function TaskIssues({
  taskId,
  issues,
  objects,
  ontology,
}: {
  taskId: string;
  issues: TaskIssue[];
  objects: EditorObject[];
  ontology: Ontology;
}) {
  if (issues.length === 0) return <p className="muted">No issues were raised on this task.</p>;
  const open = issues.filter((i) => i.status !== 'Resolved').length;
  const pins = new Map(issuePins(issues, objects).map((p) => [p.id, p]));
  return (
    <>
      <p>
        {open} open, {issues.length - open} resolved. Pins on the image: red open, green resolved.
      </p>
      <ol className="issue-list">
        {issues.map((issue, i) => {
          const pin = pins.get(issue._id);
          const page = issue.page ? ` of page ${issue.page + 1}` : '';
          const place = issue.objectId
            ? pin
              ? `, pinned on ${objectName(objects, ontology, issue.objectId)}`
              : `, on ${objectName(objects, ontology, issue.objectId)}`
            : pin
              ? `, pinned at ${Math.round(pin.position[0])}, ${Math.round(pin.position[1])}${page}`
              : issue.position
                ? `, at character ${issue.position}`
                : '';
          return (
            <li key={issue._id} className={issue.status === 'Resolved' ? 'issue-resolved' : 'issue-open'}>
              <span className="issue-status">{issue.status}</span> <q>{issue.content}</q>
              <span className="muted">
                {' '}
                by {issue.createdBy}, {when(issue.createdAt)}
                {place}
              </span>
              <IssueThread taskId={taskId} issue={issue} number={i + 1} />
            </li>
          );
        })}
      </ol>
    </>
  );
}
