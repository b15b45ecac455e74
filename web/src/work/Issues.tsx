import { ErrorNotice } from '../components/ErrorNotice';
import { useId, useState } from 'react';
import type { Project } from '../api/types';
import { useCreateIssue, useSetIssueStatus, type Issue } from '../api/work';
import { useSession } from '../auth/useSession';
import type { Ontology } from '../editor/core/ontology';
import type { EditorObject, Vec } from '../editor/core/answer';
import { errorCodesOf } from './error-codes';
import { IssueThread } from './IssueThread';
import { parsePosition } from './pins';

/** Where a reviewer clicked: a point of the image or of a page, a character, or an object. */
export interface PickedSpot {
  position?: Vec | number;
  objectId?: string;
  /** The page of a document (frame, slice) the point is on, 0-based. */
  page?: number;
}

/** An object as the lists name it: its tool's title and its number among that tool's objects. */
export function objectName(objects: EditorObject[], ontology: Ontology, objectId: string): string {
  const o = objects.find((x) => x.objectId === objectId);
  if (!o) return 'an object no longer in the answer';
  const tool = ontology.tools?.find((t) => t.schemaId === o.schemaId);
  const n = objects.filter((x) => x.schemaId === o.schemaId).indexOf(o) + 1;
  return `${tool?.title ?? o.schemaId} ${n}`;
}

function where(issue: Issue, objects: EditorObject[], ontology: Ontology): string {
  if (issue.objectId) return `on ${objectName(objects, ontology, issue.objectId)}`;
  const p = parsePosition(issue.position);
  if (p) return `at (${Math.round(p[0])}, ${Math.round(p[1])})`;
  if (issue.position) return `at character ${issue.position}`;
  return 'on the task';
}

/** A code as sent: the code itself, or `{key, name?, category?}` (its key, then its name). */
const codeText = (c: Issue['errorCodes'][number]): string =>
  typeof c === 'string' ? c : [c.key, c.name].filter((part) => typeof part === 'string' && part).join(' ');

/** The task's issues, numbered as their pins are; resolve and reopen them, answer in their threads. */
export function IssueList({
  issues,
  objects,
  ontology,
  role,
}: {
  issues: Issue[];
  objects: EditorObject[];
  ontology: Ontology;
  /** The caller's role in the project: Leads and Managers may resolve any issue. */
  role: string | undefined;
}) {
  const taskId = issues[0]?.labelTask ?? '';
  const setStatus = useSetIssueStatus(taskId);
  const session = useSession();
  const me = session.data?.user.email;
  const open = issues.filter((i) => i.status !== 'Resolved').length;
  // The API lets an issue's creator, a Lead or a Manager change it: nobody else gets the button.
  const mayChange = (issue: Issue) => !!me && (issue.createdBy === me || role === 'Lead' || role === 'Manager');
  return (
    <section className="issue-list" aria-labelledby="issues-title">
      <h2 id="issues-title">
        Issues ({open} open{issues.length > open ? `, ${issues.length - open} resolved` : ''})
      </h2>
      {issues.length === 0 && <p className="muted">No issue raised on this task.</p>}
      <ol>
        {issues.map((issue, i) => {
          const resolved = issue.status === 'Resolved';
          return (
            <li key={issue._id} className={resolved ? 'resolved' : 'open'}>
              <p>
                <span className="issue-content">{issue.content}</span>{' '}
                <span className="muted">
                  {where(issue, objects, ontology)} · {issue.createdBy} · {resolved ? 'Resolved' : 'Open'}
                </span>
              </p>
              {issue.errorCodes.length > 0 && (
                <p className="issue-codes">
                  {issue.errorCodes.map((c) => (
                    <span key={codeText(c)} className="issue-code">
                      {codeText(c)}
                    </span>
                  ))}
                </p>
              )}
              {mayChange(issue) && (
                <button
                  type="button"
                  disabled={setStatus.isPending}
                  onClick={() => setStatus.mutate({ issueId: issue._id, status: resolved ? 'Open' : 'Resolved' })}
                  aria-label={`${resolved ? 'Reopen' : 'Resolve'} issue “${issue.content}”`}
                >
                  {resolved ? 'Reopen' : 'Resolve'}
                </button>
              )}
              <IssueThread taskId={taskId} issue={issue} number={i + 1} />
            </li>
          );
        })}
      </ol>
      {setStatus.isError && <ErrorNotice place="form" error={setStatus.error} />}
    </section>
  );
}

/** The new issue at the clicked spot: what is wrong, and error codes when the project uses them. */
export function IssueForm(props: {
  taskId: string;
  project: Project & { errorSchema?: unknown };
  spot: PickedSpot;
  objects: EditorObject[];
  ontology: Ontology;
  onDone(): void;
}) {
  const id = useId();
  const create = useCreateIssue(props.taskId);
  const [content, setContent] = useState('');
  const [codes, setCodes] = useState<string[]>([]);
  const available = props.project.errorCodesEnabled ? errorCodesOf(props.project.errorSchema) : [];
  const { spot } = props;
  const place = spot.objectId
    ? `on ${objectName(props.objects, props.ontology, spot.objectId)}`
    : Array.isArray(spot.position)
      ? `at (${Math.round(spot.position[0])}, ${Math.round(spot.position[1])})${spot.page !== undefined ? ` on page ${spot.page + 1}` : ''}`
      : typeof spot.position === 'number'
        ? `at character ${spot.position}`
        : 'on the task';
  const save = () =>
    create.mutate(
      {
        content,
        ...(spot.objectId ? { objectId: spot.objectId } : {}),
        ...(spot.position !== undefined ? { position: JSON.stringify(spot.position) } : {}),
        ...(spot.page !== undefined ? { page: spot.page } : {}),
        ...(codes.length ? { errorCodes: codes } : {}),
      },
      { onSuccess: props.onDone },
    );
  return (
    <form
      className="issue-form"
      aria-label="New issue"
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <h3>New issue {place}</h3>
      <label htmlFor={`${id}-content`}>What is wrong</label>
      <textarea id={`${id}-content`} rows={3} value={content} onChange={(e) => setContent(e.target.value)} />
      {available.length > 0 && (
        <fieldset>
          <legend>Error codes</legend>
          {available.map((c) => (
            <label key={c.key} className="choice">
              <input
                type="checkbox"
                checked={codes.includes(c.key)}
                onChange={(e) => setCodes(e.target.checked ? [...codes, c.key] : codes.filter((x) => x !== c.key))}
              />
              {c.label}
            </label>
          ))}
        </fieldset>
      )}
      {create.isError && <ErrorNotice place="form" error={create.error} />}
      <div className="issue-form-actions">
        <button type="submit" className="primary" disabled={create.isPending || !content.trim()}>
          Save issue
        </button>
        <button type="button" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
