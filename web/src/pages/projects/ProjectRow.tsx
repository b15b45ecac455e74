import { ErrorNotice } from '../../components/ErrorNotice';
import { useState } from 'react';
import { Link } from 'react-router';
import { useArchiveProject, useDeleteProject } from '../../api/projects';
import type { ProjectListItem } from '../../api/types';

/** "40 of 120 done" with a bar; the counts are the live ones the database keeps. */
function Progress({ p }: { p: ProjectListItem }) {
  if (!p.progress) return <span className="muted">—</span>;
  const { tasks, completed } = p.progress;
  if (tasks === 0) return <span className="muted">No tasks yet</span>;
  const share = Math.round((completed / tasks) * 100);
  return (
    <div className="progress-cell">
      <progress max={tasks} value={completed} aria-label={`${p.name}: ${completed} of ${tasks} tasks done`} />
      <span>
        {completed.toLocaleString('en-US')} of {tasks.toLocaleString('en-US')} done ({share}%)
      </span>
    </div>
  );
}

/** Archive (or restore) and delete, for the project's Managers; delete asks once more in the row. */
function ManagerActions({ p }: { p: ProjectListItem }) {
  const archive = useArchiveProject();
  const remove = useDeleteProject();
  const [confirming, setConfirming] = useState(false);
  const failed = archive.error ?? remove.error;
  if (confirming) {
    return (
      <div className="row-actions" role="group" aria-label={`Delete ${p.name}?`}>
        <span>Delete for everyone?</span>
        <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate(p._id)}>
          Delete project
        </button>
        <button type="button" onClick={() => setConfirming(false)}>
          Keep it
        </button>
        {failed && <ErrorNotice place="inline" error={failed} />}
      </div>
    );
  }
  return (
    <div className="row-actions">
      <button
        type="button"
        aria-label={`${p.archived ? 'Restore' : 'Archive'} ${p.name}`}
        disabled={archive.isPending}
        onClick={() => archive.mutate({ projectId: p._id, archived: !p.archived })}
      >
        {p.archived ? 'Restore' : 'Archive'}
      </button>
      <button type="button" className="danger" aria-label={`Delete ${p.name}`} onClick={() => setConfirming(true)}>
        Delete
      </button>
      {failed && <ErrorNotice place="inline" error={failed} />}
    </div>
  );
}

/** One project of the list: name, progress, the caller's role, and the Manager's actions. */
export function ProjectRow({ p }: { p: ProjectListItem }) {
  return (
    <tr>
      <td>
        <Link to={`/projects/${p._id}`}>{p.name}</Link>
        {p.description && <div className="muted small">{p.description}</div>}
      </td>
      <td>
        <Progress p={p} />
      </td>
      <td>{p.role ?? '—'}</td>
      <td>{new Date(p.createdAt).toLocaleDateString()}</td>
      <td>{p.role === 'Manager' && <ManagerActions p={p} />}</td>
    </tr>
  );
}
