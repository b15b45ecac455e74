import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useProjectList } from '../api/projects';
import { ErrorNotice } from '../components/ErrorNotice';
import { listOrganizationPeople, type SessionView } from './session-api';
import { useSession } from './useSession';

/** A member's roles by project name (the top bar's list of projects, already in the cache). */
function ProjectRoles({ roles }: { roles: SessionView['projectRoles'] }) {
  const { data } = useProjectList(1, 100, '');
  const names = new Map(data?.projects.map((p) => [p._id, p.name]));
  return roles.map((r) => `${r.role} on “${names.get(r.projectId) ?? r.projectId}”`).join(', ');
}

/** /account: who is signed in, with which roles, and (for owners and admins) the organization's people. */
export function AccountPage() {
  const session = useSession();
  if (!session.data) return null;
  const me = session.data;
  return (
    <section className="account" aria-labelledby="account-title">
      <h1 id="account-title">Your account</h1>
      <dl className="account-facts">
        <dt>E-mail</dt>
        <dd>{me.user.email}</dd>
        <dt>Name</dt>
        <dd>{me.user.name}</dd>
        <dt>Organization</dt>
        <dd>{me.organization.name}</dd>
        <dt>Organization role</dt>
        <dd>{me.organizationRole}</dd>
        <dt>Project roles</dt>
        <dd>
          {me.organizationRole === 'member' ? (
            me.projectRoles.length === 0 ? (
              'none yet'
            ) : (
              <ProjectRoles roles={me.projectRoles} />
            )
          ) : (
            'Manager on every project of the organization'
          )}
        </dd>
        <dt>API key</dt>
        <dd>
          For scripts and the command line: <Link to="/org?tab=api-key">make a new API key</Link> (shown once; the one
          you have now stops working).
        </dd>
        {me.expiresAt && (
          <>
            <dt>Session</dt>
            <dd>ends at {new Date(me.expiresAt).toLocaleString()} unless you keep using it</dd>
          </>
        )}
      </dl>
      <People me={me} />
    </section>
  );
}

function People({ me }: { me: SessionView }) {
  const people = useQuery({
    queryKey: ['organization', me.organization._id, 'users'],
    queryFn: () => listOrganizationPeople(me.organization._id),
    retry: false,
  });
  return (
    <section aria-labelledby="people-title">
      <h2 id="people-title">People in {me.organization.name}</h2>
      {people.isPending && <p role="status">Loading…</p>}
      {people.isError && <ErrorNotice error={people.error} what="the organization's people" />}
      {people.data && (
        <table className="account-people">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
            </tr>
          </thead>
          <tbody>
            {people.data.users.map((u) => (
              <tr key={u._id}>
                <td>{u.email}</td>
                <td>{u.name}</td>
                <td>{u.organizationRole}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
