import { ErrorNotice } from '../../components/ErrorNotice';
import { type FormEvent, useState } from 'react';
import { type BulkAction, type TaskDetail, useBulkAction } from '../../api/tasks';
import type { Project } from '../../api/types';
import { NumberField, SelectField, TextField } from '../../components/Field';

/** The table's bulk actions (requeue, priority, assign, forward) for this one task. */
export function TaskActions({ project, task }: { project: Project; task: TaskDetail }) {
  const bulk = useBulkAction(project._id);
  const [toStage, setToStage] = useState(task.stage);
  const [priority, setPriority] = useState<number | undefined>(task.priority);
  const [user, setUser] = useState(task.assignee ?? '');
  const [done, setDone] = useState<string>();
  const stage = project.stages.find((s) => s.id === task.stage);
  const forwardable = stage?.type === 'Start' || stage?.type === 'Hold';
  const run = (e: FormEvent, action: BulkAction, what: string) => {
    e.preventDefault();
    setDone(undefined);
    bulk.mutate(action, { onSuccess: () => setDone(what) });
  };
  const one = { taskIds: [task._id] };
  const stages = project.stages.map((s) => ({ value: s.id, label: s.name || s.id }));
  return (
    <section className="card task-actions" aria-labelledby="task-actions-title">
      <h2 id="task-actions-title">Act on this task</h2>
      <form onSubmit={(e) => run(e, { kind: 'requeue', toStageId: toStage, filters: one }, 'Requeued.')}>
        <SelectField label="Requeue to stage" value={toStage} options={stages} onChange={setToStage} />
        <button type="submit" disabled={bulk.isPending}>
          Requeue
        </button>
      </form>
      <form onSubmit={(e) => run(e, { kind: 'priority', priority: priority ?? 0, filters: one }, 'Priority set.')}>
        <NumberField label="Priority" value={priority} onChange={setPriority} min={-1000} max={1000} />
        <button type="submit" disabled={bulk.isPending}>
          Set priority
        </button>
      </form>
      <form
        onSubmit={(e) =>
          run(
            e,
            { kind: 'assign', stage: task.stage, user: user.trim(), tasks: [task._id] },
            user.trim() ? 'Assigned.' : 'Unassigned.',
          )
        }
      >
        <TextField
          label="Assign to (e-mail)"
          type="email"
          value={user}
          onChange={setUser}
          hint="Empty to unassign the task."
        />
        <button type="submit" disabled={bulk.isPending}>
          Assign
        </button>
      </form>
      {forwardable && (
        <form onSubmit={(e) => run(e, { kind: 'forward', stageId: task.stage, ...one }, 'Forwarded.')}>
          <button type="submit" disabled={bulk.isPending}>
            Forward out of {stage.name || stage.id}
          </button>
        </form>
      )}
      {done && (
        <p role="status" className="form-ok">
          {done}
        </p>
      )}
      {bulk.isError && <ErrorNotice place="form" error={bulk.error} />}
    </section>
  );
}
