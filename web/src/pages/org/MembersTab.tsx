import { type FormEvent, useState } from 'react';
import {
  type AssignableOrgRole,
  type InviteAnswer,
  useCreateInvites,
  useDeleteInvite,
  useInvites,
  useOrgUsers,
  useRemoveOrgUser,
  useSetOrgRole,
} from '../../api/org';
import { useProjectList } from '../../api/projects';
import { PROJECT_ROLES, type ProjectRole } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { errorLookup, fieldErrorsOf } from '../../components/field-errors';
import { Empty, Loading } from '../../components/States';
import { ErrorNotice } from '../../components/ErrorNotice';
import { ConfirmButton, CopyField, wordsOf, MadeBy, TableHead, ProjectSelect } from './widgets';

const ORG_ROLES: readonly AssignableOrgRole[] = ['member', 'admin'];

function MemberRow({
  orgId,
  me,
  user,
}: {
  orgId: string;
  me: string;
  user: { email: string; name: string; organizationRole: string };
}) {
  const setRole = useSetOrgRole(orgId);
  const remove = useRemoveOrgUser(orgId);
  const isOwner = user.organizationRole === 'owner';
  const isMe = user.email === me;
  return (
    <tr>
      <td>{user.email}</td>
      <td>{user.name}</td>
      <td>
        {isOwner || isMe ? (
          <span title={isOwner ? 'There is one owner; the role cannot change.' : 'Your own role.'}>
            {user.organizationRole}
          </span>
        ) : (
          <select
            aria-label={`Organization role of ${user.email}`}
            value={user.organizationRole}
            disabled={setRole.isPending}
            onChange={(e) =>
              setRole.mutate({ email: user.email, organizationRole: e.target.value as AssignableOrgRole })
            }
          >
            {ORG_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        )}
        <ErrorNotice place="form" error={setRole.error} fieldsShown />
      </td>
      <td>
        {!isOwner && !isMe && (
          <ConfirmButton
            label={`Remove ${user.email}`}
            question={`Remove ${user.email} from the organization? Their key and sessions stop working.`}
            confirmLabel={`Yes, remove ${user.email}`}
            busy={remove.isPending}
            onConfirm={() => remove.mutate(user.email)}
          />
        )}
        <ErrorNotice place="form" error={remove.error} fieldsShown />
      </td>
    </tr>
  );
}

function Members({ orgId, me }: { orgId: string; me: string }) {
  const users = useOrgUsers(orgId);
  return (
    <section className="card" aria-labelledby="members-title">
      <h2 id="members-title">Members{users.data ? ` (${users.data.total})` : ''}</h2>
      {users.isPending && <Loading what="the members" />}
      {users.isError && <ErrorNotice error={users.error} onRetry={() => void users.refetch()} />}
      {users.data && (
        <table className="table">
          <TableHead columns={['E-mail', 'Name', 'Organization role']} actions />
          <tbody>
            {users.data.users.map((u) => (
              <MemberRow key={u._id} orgId={orgId} me={me} user={u} />
            ))}
          </tbody>
        </table>
      )}
      <p className="muted">
        Owners and admins manage the organization (members, storages, plugins) and are Managers of every project;
        members see the projects they are given a role on.
      </p>
    </section>
  );
}

function InviteLinks({ answer }: { answer: InviteAnswer }) {
  return (
    <div className="one-time" role="region" aria-label="Invite links">
      <p>
        <strong>
          {answer.invited} {answer.invited === 1 ? 'person' : 'people'} invited.
        </strong>{' '}
        {answer.links.length > 0
          ? 'Send each person their link now: it is shown only this once, and works until it expires.'
          : 'Nobody got a link: everyone invited already has an account.'}
      </p>
      {answer.links.map((l) => (
        <div key={l.email}>
          <CopyField label={`Invite link for ${l.email}`} value={l.url} what={`link for ${l.email}`} short="link" />
          <p className="muted">Expires {new Date(l.expiresAt).toLocaleString()}.</p>
        </div>
      ))}
    </div>
  );
}

function InviteForm({ orgId }: { orgId: string }) {
  const [emails, setEmails] = useState('');
  const [role, setRole] = useState<AssignableOrgRole>('member');
  const [projectId, setProjectId] = useState('');
  const [projectRole, setProjectRole] = useState<ProjectRole>('Labeler');
  const invite = useCreateInvites(orgId);
  const errorOf = errorLookup(fieldErrorsOf(invite.error));
  const list = wordsOf(emails);
  const emailError = errorOf('to') ?? fieldErrorsOf(invite.error).find((e) => e.field.startsWith('to['))?.message;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate(
      {
        to: list,
        organizationRole: role,
        ...(projectId ? { projectAssignments: [{ projectId, projectRole }] } : {}),
      },
      { onSuccess: () => setEmails('') },
    );
  };
  return (
    <section className="card" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite people</h2>
      <form onSubmit={submit} noValidate>
        <TextField
          label="E-mails to invite"
          multiline
          value={emails}
          onChange={setEmails}
          error={emailError}
          hint="One a line (or separated by commas)."
        />
        <SelectField
          label="Organization role"
          value={role}
          options={ORG_ROLES}
          onChange={setRole}
          error={errorOf('organizationRole')}
        />
        <fieldset>
          <legend>Project (optional)</legend>
          <ProjectSelect
            label="Project to join"
            none="No project"
            value={projectId}
            onChange={setProjectId}
            error={errorOf('projectAssignments[0].projectId')}
          />
          {projectId && (
            <SelectField
              label="Project role"
              value={projectRole}
              options={PROJECT_ROLES}
              onChange={setProjectRole}
              error={errorOf('projectAssignments[0].projectRole')}
            />
          )}
        </fieldset>
        <button type="submit" disabled={list.length === 0 || invite.isPending}>
          {invite.isPending ? 'Inviting…' : list.length > 1 ? `Invite ${list.length} people` : 'Invite'}
        </button>
      </form>
      <ErrorNotice place="form" error={invite.error} fieldsShown />
      {invite.data && <InviteLinks answer={invite.data} />}
    </section>
  );
}

function PendingInvites({ orgId }: { orgId: string }) {
  const invites = useInvites(orgId);
  const remove = useDeleteInvite(orgId);
  // The invite keeps project ids: named from the project list (the same one the invite form offers).
  const projects = useProjectList(1, 100, '');
  const projectName = (id: string) => projects.data?.projects.find((p) => p._id === id)?.name ?? id;
  return (
    <section className="card" aria-labelledby="invites-title">
      <h2 id="invites-title">Invites waiting{invites.data ? ` (${invites.data.total})` : ''}</h2>
      {invites.isPending && <Loading what="the invites" />}
      {invites.isError && <ErrorNotice error={invites.error} onRetry={() => void invites.refetch()} />}
      {invites.data?.invites.length === 0 && <Empty title="No invite is waiting." />}
      {invites.data && invites.data.invites.length > 0 && (
        <table className="table compact">
          <TableHead columns={['E-mail', 'Organization role', 'Project role', 'Invited by']} actions />
          <tbody>
            {invites.data.invites.map((i) => (
              <tr key={i._id}>
                <td>{i.email}</td>
                <td>{i.organizationRole}</td>
                <td>
                  {i.projectAssignments.length === 0
                    ? '–'
                    : i.projectAssignments.map((a) => `${a.projectRole} on “${projectName(a.projectId)}”`).join(', ')}
                </td>
                <td>
                  <MadeBy by={i.createdBy} at={i.createdAt} />
                </td>
                <td>
                  <ConfirmButton
                    label={`Cancel the invite for ${i.email}`}
                    question={`Void the link sent to ${i.email}?`}
                    confirmLabel={`Yes, cancel the invite for ${i.email}`}
                    busy={remove.isPending}
                    onConfirm={() => remove.mutate(i.email)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorNotice place="form" error={remove.error} fieldsShown />
      <p className="muted">A lost link is replaced by inviting the same e-mail again (the old link stops working).</p>
    </section>
  );
}

/** Members with their roles, invites and their one-time links: owners and admins only. */
export function MembersTab({ orgId, me }: { orgId: string; me: string }) {
  return (
    <div className="columns">
      <div className="grow">
        <Members orgId={orgId} me={me} />
        <PendingInvites orgId={orgId} />
      </div>
      <div className="side">
        <InviteForm orgId={orgId} />
      </div>
    </div>
  );
}
