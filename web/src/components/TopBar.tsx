import { Link, useNavigate, useParams } from 'react-router';
import { setStoredApiKey } from '../api/http';
import { useProjectList } from '../api/projects';
import { queryClient } from '../api/query-client';

/** Projects the switcher offers: the first hundred by name (the Projects page searches them all). */
const SWITCHER_LIMIT = 100;

function ProjectSwitcher() {
  const { projectId } = useParams();
  const navigate = useNavigate();
  const { data } = useProjectList(1, SWITCHER_LIMIT, '');
  const projects = data?.projects ?? [];
  return (
    <div className="switcher">
      <label htmlFor="project-switcher">Project</label>
      <select
        id="project-switcher"
        value={projectId ?? ''}
        onChange={(e) => navigate(e.target.value ? `/projects/${e.target.value}/workflow` : '/projects')}
      >
        <option value="">All projects</option>
        {projects.map((p) => (
          <option key={p._id} value={p._id}>
            {p.name}
          </option>
        ))}
      </select>
    </div>
  );
}

function UserMenu() {
  const navigate = useNavigate();
  const signOut = async () => {
    setStoredApiKey(null);
    // The session cookie (when signed in with a password) ends on the server; a 404 before
    // sign-in exists on this server is harmless.
    await fetch('/auth/signout', { method: 'POST', credentials: 'same-origin' }).catch(() => undefined);
    queryClient.clear();
    navigate('/signin');
  };
  return (
    <details className="user-menu">
      <summary>Account</summary>
      <div className="menu" role="menu">
        <Link role="menuitem" to="/org">
          Organization
        </Link>
        <button type="button" role="menuitem" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
    </details>
  );
}

export function TopBar() {
  return (
    <header className="topbar">
      <Link className="brand" to="/projects">
        Annotary
      </Link>
      <nav aria-label="Main" className="topnav">
        <Link to="/projects">Projects</Link>
        <Link to="/org">Organization</Link>
      </nav>
      <ProjectSwitcher />
      <span className="topbar-spacer" />
      <UserMenu />
    </header>
  );
}
