import { ErrorNotice } from '../../components/ErrorNotice';
import { type FormEvent, type MouseEvent, useState } from 'react';
import { type BulkAction, type TaskFilters, type TaskSelection, useBulkAction } from '../../api/tasks';
import { may } from '../../api/access';
import type { Project } from '../../api/types';
import { NumberField, SelectField, TextField } from '../../components/Field';

/**
 * Requeue, priority, assign and forward on the selected tasks, or on every task the filter
 * matches. The bulk endpoints select by stage, batch and external id: a filter on status,
 * assignee or review status can only act on a selection. Assign and forward act on the stage
 * chosen in the filter (forward: a Start or Hold stage, by its first output; by batch only).
 * Managers also mark the selected tasks as benchmarks, with their current answer or their
 * pre-labels as the reference, and unmark them.
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
  const [reference, setReference] = useState<'answer' | 'prelabels'>('answer');
  const byFilter = scope === 'filter' && filterUsable;
  const selection: TaskSelection = byFilter
    ? {
        ...(filters.stage ? { fromStageIds: [filters.stage] } : {}),
        ...(filters.batch ? { batches: [filters.batch] } : {}),
        ...(filters.externalId.trim() ? { externalIds: [filters.externalId.trim()] } : {}),
      }
    : { taskIds: selected };
  const count = byFilter ? matching : selected.length;
  const run = (e: FormEvent | MouseEvent, action: BulkAction, what: string) => {
    e.preventDefault();
    setDone(undefined);
    bulk.mutate(action, {
      onSuccess: (data) => {
        // Forward says how many it moved (tasks not waiting in the stage are left alone).
        const n = typeof data.forwarded === 'number' ? data.forwarded : count;
        setDone(`${what}: ${n} task${n === 1 ? '' : 's'}.`);
        onDone();
      },
    });
  };
  const filterStage = project.stages.find((s) => s.id === filters.stage);
  const forwardable = filterStage?.type === 'Start' || filterStage?.type === 'Hold';
  const forwardTo = forwardable ? project.stages.find((s) => s.id === filterStage.next?.[0]) : undefined;
  const forward: BulkAction | undefined = forwardable
    ? {
        kind: 'forward',
        stageId: filterStage.id,
        ...(byFilter ? (filters.batch ? { batches: [filters.batch] } : {}) : { taskIds: selected }),
      }
    : undefined;
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
        <form onSubmit={(e) => forward && run(e, forward, 'Forwarded')}>
          <p className="field-hint" id="forward-hint">
            {forwardable
              ? `Tasks waiting in ${filterStage.name || filterStage.id} go on to ${forwardTo?.name || filterStage.next?.[0] || 'its first output'}.`
              : 'Choose a Start or Hold stage in the filter to forward its waiting tasks.'}
          </p>
          <button
            type="submit"
            aria-describedby="forward-hint"
            disabled={!forward || count === 0 || (byFilter && !!filters.externalId.trim()) || bulk.isPending}
          >
            Forward
          </button>
        </form>
        {may(project, 'manage') && (
          <form
            onSubmit={(e) => run(e, { kind: 'benchmark', tasks: selected, source: reference }, 'Marked as benchmarks')}
          >
            <SelectField
              label="Benchmark reference"
              value={reference}
              options={[
                { value: 'answer', label: "The task's current answer" },
                { value: 'prelabels', label: 'Its imported pre-labels' },
              ]}
              onChange={setReference}
              hint="Selected tasks; labelers are scored against this answer."
            />
            <div className="bulk-buttons">
              <button type="submit" disabled={byFilter || selected.length === 0 || bulk.isPending}>
                Mark as benchmarks
              </button>
              <button
                type="button"
                disabled={byFilter || selected.length === 0 || bulk.isPending}
                onClick={(e) => run(e, { kind: 'unbenchmark', tasks: selected }, 'No longer benchmarks')}
              >
                Unmark benchmarks
              </button>
            </div>
          </form>
        )}
      </div>
      {done && (
        <p role="status" className="form-ok">
          {done}
        </p>
      )}
      {bulk.isError && <ErrorNotice place="form" error={bulk.error} />}
    </section>
  );
}
