import type { RowSelectionState } from '@tanstack/react-table';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useOutletContext } from 'react-router';
import { may } from '../../api/access';
import { NO_FILTERS, type TaskFilters, taskListQuery, useTaskList } from '../../api/tasks';
import type { Project } from '../../api/types';
import { SelectField } from '../../components/Field';
import { Empty, Loading } from '../../components/States';
import { ErrorNotice } from '../../components/ErrorNotice';
import { BulkActions } from './BulkActions';
import { TaskFiltersForm } from './TaskFiltersForm';
import { TaskTable } from './TaskTable';

const PAGE_SIZES = ['50', '100', '500', '1000'] as const;
const TYPING_PAUSE_MS = 250;

/** Every task of the project, a server page at a time: never the whole list in the browser. */
export default function TasksPage() {
  const project = useOutletContext<Project>();
  const [filters, setFilters] = useState<TaskFilters>(NO_FILTERS);
  const [sort, setSort] = useState('-createdAt');
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState<(typeof PAGE_SIZES)[number]>('100');
  const [selection, setSelection] = useState<RowSelectionState>({});
  // What the server is asked for: a choice in a select at once, typing once it pauses.
  const [asked, setAsked] = useState<TaskFilters>(NO_FILTERS);
  const typing = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(typing.current), []);
  const queryClient = useQueryClient();
  const changeFilters = (f: TaskFilters) => {
    setFilters(f);
    reset();
    clearTimeout(typing.current);
    if (f.assignee !== filters.assignee || f.externalId !== filters.externalId) {
      typing.current = setTimeout(() => setAsked(f), TYPING_PAUSE_MS);
      return;
    }
    // The request leaves with the change event, not after the renders it causes.
    void queryClient.prefetchQuery(taskListQuery(project._id, { page: 1, limit: Number(limit), sort, filters: f }));
    setAsked(f);
  };
  const list = useTaskList(project._id, { page, limit: Number(limit), sort, filters: asked });
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / Number(limit)));
  const reset = () => {
    setPage(1);
    setSelection({});
  };
  return (
    <div>
      <h1>Tasks</h1>
      <TaskFiltersForm project={project} filters={filters} onChange={changeFilters} />
      <section className="card" aria-labelledby="task-list-title">
        <div className="page-head">
          <h2 id="task-list-title" aria-live="polite">
            {list.data ? `${total} task${total === 1 ? '' : 's'}` : 'Tasks'}
            {list.isFetching && list.data ? ' (updating…)' : ''}
          </h2>
          <nav className="pager" aria-label="Task pages">
            <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              Previous page
            </button>
            <span>
              Page {page} of {pages}
            </span>
            <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
              Next page
            </button>
            <SelectField
              label="Tasks per page"
              value={limit}
              options={PAGE_SIZES}
              onChange={(l) => {
                setLimit(l);
                reset();
              }}
            />
          </nav>
        </div>
        {list.isPending && <Loading what="tasks" />}
        {list.isError && <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />}
        {list.data?.tasks.length === 0 && (
          <Empty
            title={asked === NO_FILTERS ? 'No tasks yet: import assets to make some.' : 'No task matches the filter.'}
          />
        )}
        {list.data && list.data.tasks.length > 0 && (
          <TaskTable
            rows={list.data.tasks}
            sort={sort}
            onSort={(s) => {
              setSort(s);
              reset();
            }}
            selection={selection}
            onSelection={setSelection}
            benchmarks={may(project, 'manage')}
          />
        )}
      </section>
      {/* Requeue, assign, priority and forward: Leads and Managers (import), not Reviewers. */}
      {may(project, 'import') && (
        <BulkActions
          project={project}
          filters={asked}
          selected={Object.keys(selection).filter((id) => selection[id])}
          matching={total}
          onDone={() => setSelection({})}
        />
      )}
    </div>
  );
}
