import { Link, useNavigate, useParams } from 'react-router';
import { useProjectList } from '../api/projects';
import { queryClient } from '../api/query-client';
import { signOut } from '../api/session';
import { SESSION_KEY, useSession } from '../auth/useSession';
import { projectTells } from './project-tells';

/** Projects the switcher offers: the first hundred by name (the Projects page searches them all). */
const SWITCHER_LIMIT = 100;

function ProjectSwitcher() {
  const { projectId } = useParams();
  const navigate = useNavigate();
  const { data } = useProjectList(1, SWITCHER_LIMIT, '');
  const projects = data?.projects ?? [];
  const tells = projectTells(projects);
  return (
    <div className="switcher">
      <label htmlFor="project-switcher">Project</label>
      <select
        id="project-switcher"
        className={tells.size > 0 ? 'has-tells' : undefined}
        value={projectId ?? ''}
        onChange={(e) => navigate(e.target.value ? `/projects/${e.target.value}` : '/projects')}
      >
        <option value="">All projects</option>
        {projects.map((p) => (
          <option key={p._id} value={p._id}>
            {p.name}
            {/* Part of the option's text (its accessible name); muted where the select draws markup. */}
            {tells.has(p._id) && <span className="switcher-tell"> · {tells.get(p._id)}</span>}
          </option>
        ))}
      </select>
    </div>
  );
}

function UserMenu() {
  const navigate = useNavigate();
  const session = useSession();
  const user = session.data?.user;
  const leave = async () => {
    const { endSessionUrl } = await signOut();
    queryClient.clear();
    queryClient.setQueryData(SESSION_KEY, null);
    // Signed in through a provider that ends its own session too: it sends the browser back to /signin.
    if (endSessionUrl) window.location.assign(endSessionUrl);
    else await navigate('/signin', { replace: true });
  };
  return (
    <details className="user-menu">
      <summary>{user ? user.name || user.email : 'Account'}</summary>
      <div className="menu">
        {user && (
          <p className="muted menu-who">
            {user.email}
            <br />
            {session.data?.organizationRole} of {session.data?.organization.name}
          </p>
        )}
        <Link to="/account">Your account and API key</Link>
        <button type="button" onClick={() => void leave()}>
          Sign out
        </button>
      </div>
    </details>
  );
}

export function TopBar() {
  const session = useSession();
  return (
    <header className="topbar">
      <Link className="brand" to="/projects">
        Annotary
      </Link>
      <nav aria-label="Main" className="topnav">
        <Link to="/projects">Projects</Link>
        <Link to="/work">Work</Link>
        <Link to="/org">{session.data ? `Organization: ${session.data.organization.name}` : 'Organization'}</Link>
      </nav>
      <ProjectSwitcher />
      <span className="topbar-spacer" />
      <UserMenu />
    </header>
  );
}
