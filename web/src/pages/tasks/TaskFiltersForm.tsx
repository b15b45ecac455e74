import type { TaskFilters } from '../../api/tasks';
import type { Project } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';

/** The table's filters; each change asks the server for the first page again. */
export function TaskFiltersForm({
  project,
  filters,
  onChange,
}: {
  project: Project;
  filters: TaskFilters;
  onChange: (filters: TaskFilters) => void;
}) {
  const set = (patch: Partial<TaskFilters>) => onChange({ ...filters, ...patch });
  return (
    <form className="filters" aria-label="Task filters" onSubmit={(e) => e.preventDefault()}>
      <SelectField
        label="Stage"
        value={filters.stage}
        options={[
          { value: '', label: 'Any stage' },
          ...project.stages.map((s) => ({ value: s.id, label: s.name || s.id })),
        ]}
        onChange={(stage) => set({ stage })}
      />
      <SelectField
        label="Status"
        value={filters.status}
        options={[
          { value: '', label: 'Any status' },
          { value: 'TODO', label: 'To do' },
          { value: 'Completed', label: 'Completed' },
          { value: 'Archived', label: 'Archived' },
        ]}
        onChange={(status) => set({ status })}
      />
      <SelectField
        label="Batch"
        value={filters.batch}
        options={[
          { value: '', label: 'Any batch' },
          ...project.batches.map((b) => ({ value: b._id ?? b.name, label: b.name })),
        ]}
        onChange={(batch) => set({ batch })}
      />
      <SelectField
        label="Review status"
        value={filters.reviewStatus}
        options={[
          { value: '', label: 'Any' },
          { value: 'Accepted', label: 'Accepted' },
          { value: 'Rejected', label: 'Rejected' },
        ]}
        onChange={(reviewStatus) => set({ reviewStatus })}
      />
      <TextField label="Assignee" type="email" value={filters.assignee} onChange={(assignee) => set({ assignee })} />
      <TextField label="External id" value={filters.externalId} onChange={(externalId) => set({ externalId })} />
    </form>
  );
}
