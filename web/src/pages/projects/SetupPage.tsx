import { Link, useOutletContext } from 'react-router';
import type { Project } from '../../api/types';
import { setupChecklist } from './setup-checklist';

/** /projects/:id/setup: where a new project opens, the four things labeling needs, each with its page. */
export default function SetupPage() {
  const project = useOutletContext<Project>();
  const items = setupChecklist(project);
  const done = items.filter((i) => i.done).length;
  return (
    <div className="setup-page">
      <h1>Set up {project.name}</h1>
      <p className="muted" role="status">
        {done === items.length
          ? 'Everything labeling needs is in place. Labelers find their tasks under Work.'
          : `${done} of ${items.length} done. Labeling starts once each item is done.`}
      </p>
      <ol className="checklist" aria-label="Setup checklist">
        {items.map((item) => (
          <li key={item.key} className={item.done ? 'is-done' : 'is-open'}>
            <span className="check-mark" aria-hidden="true">
              {item.done ? '✓' : ''}
            </span>
            <div className="check-body">
              <h2>
                {item.title}
                <span className="visually-hidden">{item.done ? ': done' : ': not done'}</span>
              </h2>
              <p className="muted">{item.detail}</p>
            </div>
            <Link
              className={item.done ? 'button-link secondary' : 'button-link'}
              to={`/projects/${project._id}/${item.path}`}
            >
              {item.action}
            </Link>
          </li>
        ))}
      </ol>
    </div>
  );
}
