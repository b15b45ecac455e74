import { ErrorNotice } from '../../components/ErrorNotice';
import { type FormEvent, useState } from 'react';
import { useAssignMembers } from '../../api/projects';
import { PROJECT_ROLES, type Project, type ProjectRole } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { errorLookup, fieldErrorsOf } from '../../components/field-errors';
import { Empty } from '../../components/States';

/** The people of the project and their roles; adding someone again with another role changes it. */
export function ProjectMembers({ project }: { project: Project }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<ProjectRole>('Labeler');
  const assign = useAssignMembers(project._id);
  const errorOf = errorLookup(fieldErrorsOf(assign.error));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    assign.mutate({ assignees: [email.trim()], role }, { onSuccess: () => setEmail('') });
  };
  return (
    <section className="card" aria-labelledby="settings-members">
      <h2 id="settings-members">Members and roles</h2>
      {project.assignedTo.length === 0 ? (
        <Empty title="Nobody is assigned to this project yet." />
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
            </tr>
          </thead>
          <tbody>
            {project.assignedTo.map((m) => (
              <tr key={m.assignee}>
                <td>{m.assignee}</td>
                <td>{m.role}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form onSubmit={submit} className="inline-form" noValidate>
        <TextField
          label="Member e-mail"
          type="email"
          value={email}
          onChange={setEmail}
          error={errorOf('assignees') ?? errorOf('assignees[0]')}
          hint="A member of the organization; invite new people under Organization."
        />
        <SelectField label="Role" value={role} options={PROJECT_ROLES} onChange={setRole} error={errorOf('role')} />
        <button type="submit" disabled={assign.isPending || !email.trim()}>
          Add or change role
        </button>
      </form>
      {assign.isError && <ErrorNotice place="form" error={assign.error} fieldsShown />}
    </section>
  );
}
