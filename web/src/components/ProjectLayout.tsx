import { Suspense } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useOutletContext, useParams } from 'react-router';
import { useProject } from '../api/projects';
import type { Project } from '../api/types';
import { landingSection, maySee, sectionsFor } from './project-sections';
import { Loading } from './States';
import { ErrorNotice } from './ErrorNotice';

/** Inside a project: its name, the left navigation of the sections the caller may use, and the section. */
export function ProjectLayout() {
  const { projectId = '' } = useParams();
  const { pathname } = useLocation();
  const project = useProject(projectId);
  if (project.isPending) return <Loading what="the project" />;
  if (project.isError) return <ErrorNotice error={project.error} onRetry={() => void project.refetch()} />;
  // /projects/<id>/<section>/...
  const section = pathname.split('/')[3] ?? '';
  // A section the role may not use is not offered; opened by its address, it gives way to the landing page.
  if (section && !maySee(project.data, section)) {
    return <Navigate to={`/projects/${projectId}/${landingSection(project.data)}`} replace />;
  }
  return (
    <div className="project">
      <aside className="sidenav">
        <p className="sidenav-title" title={project.data.name}>
          {project.data.name}
        </p>
        <nav aria-label="Project">
          <ul>
            {sectionsFor(project.data).map(({ path, label }) => (
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

/** The project's own address: the section its caller starts in (project-sections.ts). */
export function ProjectLanding() {
  const project = useOutletContext<Project>();
  return <Navigate to={landingSection(project)} replace />;
}
