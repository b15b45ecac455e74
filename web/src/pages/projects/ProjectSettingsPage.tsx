import { ErrorNotice } from '../../components/ErrorNotice';
import { type FormEvent, useState } from 'react';
import { useOutletContext } from 'react-router';
import { useUpdateProject } from '../../api/projects';
import type { Project } from '../../api/types';
import { CheckboxField, NumberField, SelectField, TextField } from '../../components/Field';
import { errorLookup, fieldErrorsOf } from '../../components/field-errors';
import { BenchmarkSettings } from './BenchmarkSettings';
import { ProjectMembers } from './ProjectMembers';

type Overlap = NonNullable<Project['segmentationOverlap']>;
const OVERLAP_OPTIONS: { value: Overlap; label: string }[] = [
  { value: 'allow', label: 'May overlap' },
  { value: 'later-wins', label: 'Do not overlap: the one drawn later wins' },
  { value: 'earlier-wins', label: 'Do not overlap: the one drawn first wins' },
];

/** Name, description and the project settings a manager changes most; then the members. */
export default function ProjectSettingsPage() {
  const project = useOutletContext<Project>();
  const [name, setName] = useState(project.name);
  const [description, setDescription] = useState(project.description ?? '');
  const [taskSkipEnabled, setTaskSkip] = useState(project.taskSkipEnabled ?? false);
  const [unassignSkippedTask, setUnassignSkipped] = useState(project.unassignSkippedTask ?? false);
  const [queueCountsEnabled, setQueueCounts] = useState(project.queueCountsEnabled ?? true);
  const [segmentationOverlap, setOverlap] = useState<Overlap>(project.segmentationOverlap ?? 'allow');
  const [idleTimeout, setIdleTimeout] = useState<number | undefined>(project.idleTimeout);
  const update = useUpdateProject(project._id);
  const errorOf = errorLookup(fieldErrorsOf(update.error));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({
      name,
      description,
      taskSkipEnabled,
      unassignSkippedTask,
      queueCountsEnabled,
      segmentationOverlap,
      ...(idleTimeout !== undefined ? { idleTimeout } : {}),
    });
  };
  return (
    <div className="settings-page">
      <h1>Settings</h1>
      <section className="card" aria-labelledby="settings-general">
        <h2 id="settings-general">General</h2>
        <form onSubmit={submit} noValidate>
          <TextField label="Project name" value={name} onChange={setName} error={errorOf('name')} />
          <TextField
            label="Description"
            value={description}
            onChange={setDescription}
            error={errorOf('description')}
            multiline
          />
          <CheckboxField
            label="Labelers may skip tasks"
            checked={taskSkipEnabled}
            onChange={setTaskSkip}
            error={errorOf('taskSkipEnabled')}
          />
          <CheckboxField
            label="Unassign a task its labeler skipped"
            checked={unassignSkippedTask}
            onChange={setUnassignSkipped}
            error={errorOf('unassignSkippedTask')}
          />
          <CheckboxField
            label="Show labelers how many tasks wait"
            checked={queueCountsEnabled}
            onChange={setQueueCounts}
            error={errorOf('queueCountsEnabled')}
          />
          <SelectField
            label="Overlapping segmentation objects"
            hint="Whether segmentation objects of one image may overlap, and which keeps the shared area; with the earlier kept, brush classes do not paint over each other either."
            value={segmentationOverlap}
            options={OVERLAP_OPTIONS}
            onChange={setOverlap}
            error={errorOf('segmentationOverlap')}
          />
          <NumberField
            label="Idle timeout (seconds)"
            hint="A stretch without input counts at most this long in a labeler's time (duration); 0 counts all of it."
            value={idleTimeout}
            onChange={setIdleTimeout}
            min={0}
            error={errorOf('idleTimeout')}
          />
          {update.isError && <ErrorNotice place="form" error={update.error} fieldsShown />}
          {update.isSuccess && (
            <p className="form-ok" role="status">
              Settings saved.
            </p>
          )}
          <button type="submit" className="primary" disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save settings'}
          </button>
        </form>
      </section>
      <BenchmarkSettings project={project} />
      <ProjectMembers project={project} />
    </div>
  );
}
