import { Suspense } from 'react';
import { NavLink, Outlet, useParams } from 'react-router';
import { useProject } from '../api/projects';
import { ErrorNotice, Loading } from './States';

const SECTIONS = [
  ['workflow', 'Workflow'],
  ['ontology', 'Ontology'],
  ['tasks', 'Tasks'],
  ['assets', 'Assets'],
  ['overview', 'Overview'],
  ['exports', 'Exports'],
  ['settings', 'Settings'],
] as const;

/** Inside a project: its name, the left navigation, and the section. */
export function ProjectLayout() {
  const { projectId = '' } = useParams();
  const project = useProject(projectId);
  if (project.isPending) return <Loading what="the project" />;
  if (project.isError) return <ErrorNotice error={project.error} onRetry={() => void project.refetch()} />;
  return (
    <div className="project">
      <aside className="sidenav">
        <p className="sidenav-title" title={project.data.name}>
          {project.data.name}
        </p>
        <nav aria-label="Project">
          <ul>
            {SECTIONS.map(([path, label]) => (
              <li key={path}>
                <NavLink to={`/projects/${projectId}/${path}`}>{label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
      </aside>
      <section className="project-body">
        <Suspense fallback={<Loading what="the section" />}>
          <Outlet context={project.data} />
        </Suspense>
      </section>
    </div>
  );
}
