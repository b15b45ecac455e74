import { ErrorNotice } from '../../components/ErrorNotice';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { useCreateProject } from '../../api/projects';
import { TextField } from '../../components/Field';
import { errorLookup, fieldErrorsOf } from '../../components/field-errors';

/** A new project with the default workflow (Start, Label, Complete); opens its setup checklist when made. */
export function CreateProjectForm() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useCreateProject();
  const navigate = useNavigate();
  const errorOf = errorLookup(fieldErrorsOf(create.error));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) },
      { onSuccess: (project) => navigate(`/projects/${project._id}/setup`) },
    );
  };
  return (
    <section aria-labelledby="create-project-title" className="card side">
      <h2 id="create-project-title">New project</h2>
      <form onSubmit={submit} noValidate>
        <TextField label="Project name" value={name} onChange={setName} error={errorOf('name')} required />
        <TextField
          label="Description"
          value={description}
          onChange={setDescription}
          error={errorOf('description')}
          multiline
        />
        {create.isError && <ErrorNotice place="form" error={create.error} fieldsShown />}
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create project'}
        </button>
      </form>
    </section>
  );
}
