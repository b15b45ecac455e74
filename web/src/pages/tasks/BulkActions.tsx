import { type FormEvent, useState } from 'react';
import { type TaskFilters, type TaskSelection, useBulkAction } from '../../api/tasks';
import type { Project } from '../../api/types';
import { NumberField, SelectField, TextField } from '../../components/Field';
import { errorText } from '../../components/States';

/**
 * Requeue, priority and assign on the selected tasks, or on every task the filter matches.
 * The bulk endpoints select by stage, batch and external id: a filter on status, assignee or
 * review status can only act on a selection.
 */
export function BulkActions({
  project,
  filters,
  selected,
  matching,
  onDone,
}: {
  project: Project;
  filters: TaskFilters;
  selected: string[];
  matching: number;
  onDone: () => void;
}) {
  const bulk = useBulkAction(project._id);
  const filterUsable = !filters.status && !filters.assignee && !filters.reviewStatus;
  const [scope, setScope] = useState<'selected' | 'filter'>('selected');
  const [toStage, setToStage] = useState(project.stages[1]?.id ?? '');
  const [priority, setPriority] = useState<number | undefined>(1);
  const [user, setUser] = useState('');
  const [done, setDone] = useState<string>();
  const byFilter = scope === 'filter' && filterUsable;
  const selection: TaskSelection = byFilter
    ? {
        ...(filters.stage ? { fromStageIds: [filters.stage] } : {}),
        ...(filters.batch ? { batches: [filters.batch] } : {}),
        ...(filters.externalId.trim() ? { externalIds: [filters.externalId.trim()] } : {}),
      }
    : { taskIds: selected };
  const count = byFilter ? matching : selected.length;
  const run = (e: FormEvent, action: Parameters<typeof bulk.mutate>[0], what: string) => {
    e.preventDefault();
    setDone(undefined);
    bulk.mutate(action, {
      onSuccess: () => {
        setDone(`${what}: ${count} task${count === 1 ? '' : 's'}.`);
        onDone();
      },
    });
  };
  const stages = project.stages.map((s) => ({ value: s.id, label: s.name || s.id }));
  return (
    <section className="card bulk" aria-labelledby="bulk-title">
      <h2 id="bulk-title">Act on tasks</h2>
      <fieldset>
        <legend>Which tasks</legend>
        <label>
          <input type="radio" name="scope" checked={!byFilter} onChange={() => setScope('selected')} /> The{' '}
          {selected.length} selected
        </label>
        <label>
          <input
            type="radio"
            name="scope"
            checked={byFilter}
            disabled={!filterUsable}
            onChange={() => setScope('filter')}
          />{' '}
          All {matching} matching the filter
          {!filterUsable && <span className="muted"> (only by stage, batch and external id)</span>}
        </label>
      </fieldset>
      <div className="bulk-forms">
        <form onSubmit={(e) => run(e, { kind: 'requeue', toStageId: toStage, filters: selection }, 'Requeued')}>
          <SelectField label="Requeue to stage" value={toStage} options={stages} onChange={setToStage} />
          <button type="submit" disabled={count === 0 || bulk.isPending}>
            Requeue
          </button>
        </form>
        <form
          onSubmit={(e) => run(e, { kind: 'priority', priority: priority ?? 0, filters: selection }, 'Priority set')}
        >
          <NumberField label="Priority" value={priority} onChange={setPriority} min={-1000} max={1000} />
          <button type="submit" disabled={count === 0 || bulk.isPending}>
            Set priority
          </button>
        </form>
        <form
          onSubmit={(e) =>
            run(e, { kind: 'assign', stage: filters.stage, user: user.trim(), tasks: selected }, 'Assigned')
          }
        >
          <TextField
            label="Assign to (e-mail)"
            type="email"
            value={user}
            onChange={setUser}
            hint="Selected tasks of the stage chosen in the filter."
          />
          <button type="submit" disabled={byFilter || !filters.stage || selected.length === 0 || bulk.isPending}>
            Assign
          </button>
        </form>
      </div>
      {done && (
        <p role="status" className="form-ok">
          {done}
        </p>
      )}
      {bulk.isError && (
        <p role="alert" className="form-error">
          {errorText(bulk.error)}
        </p>
      )}
    </section>
  );
}
