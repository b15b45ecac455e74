import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '../../../src/client/schema';
import { api, unwrap } from './client';

type Schemas = components['schemas'];

/** One row of the task list: the fields the table asks for (`fields`), `_id` always. */
export type TaskRow = Schemas['TaskListItem'] & { _id: string };

/** The filters the table offers; empty strings mean "any". */
export interface TaskFilters {
  stage: string;
  status: string;
  batch: string;
  assignee: string;
  externalId: string;
  reviewStatus: string;
}

export const NO_FILTERS: TaskFilters = {
  stage: '',
  status: '',
  batch: '',
  assignee: '',
  externalId: '',
  reviewStatus: '',
};

/** The list's `filter` JSON (docs/api.md): each chosen field by equality, batches "in any of". */
export function filterJson(f: TaskFilters): string | undefined {
  const out: Record<string, unknown> = {};
  if (f.stage) out.stage = f.stage;
  if (f.status) out.status = f.status;
  if (f.reviewStatus) out.reviewStatus = f.reviewStatus;
  if (f.assignee.trim()) out.assignee = f.assignee.trim();
  if (f.externalId.trim()) out.externalId = f.externalId.trim();
  if (f.batch) out.batches = { $in: [f.batch] };
  return Object.keys(out).length ? JSON.stringify(out) : undefined;
}

const FIELDS = '_id,externalId,stage,status,priority,assignee,reviewStatus,type,createdAt,updatedAt';

export interface TaskListQuery {
  page: number;
  limit: number;
  sort: string;
  filters: TaskFilters;
}

/** One page of the list: shared by the table's query and its prefetch when a filter changes. */
export function taskListQuery(projectId: string, q: TaskListQuery) {
  const filter = filterJson(q.filters);
  return queryOptions({
    queryKey: ['tasks', projectId, q.page, q.limit, q.sort, filter ?? ''],
    queryFn: () =>
      unwrap<{ tasks: TaskRow[]; total: number }>(
        'GET',
        '/v2/project/{projectId}/tasks',
        api.GET('/v2/project/{projectId}/tasks', {
          params: {
            path: { projectId },
            query: { page: q.page, limit: q.limit, sort: q.sort, fields: FIELDS, ...(filter ? { filter } : {}) },
          },
        }),
      ),
  });
}

export function useTaskList(projectId: string, q: TaskListQuery) {
  return useQuery({ ...taskListQuery(projectId, q), placeholderData: keepPreviousData });
}

/** Which tasks a bulk action takes: listed ids, or the filter's stage/batch/externalId. */
export interface TaskSelection {
  taskIds?: string[];
  fromStageIds?: string[];
  batches?: string[];
  externalIds?: string[];
}

export type BulkAction =
  | { kind: 'requeue'; toStageId: string; filters: TaskSelection }
  | { kind: 'priority'; priority: number; filters: TaskSelection }
  | { kind: 'assign'; stage: string; user: string; tasks: string[] }
  /** Out of a Start or Hold stage by its first output: listed tasks, or all of the stage (in batches). */
  | { kind: 'forward'; stageId: string; taskIds?: string[]; batches?: string[] }
  /** Marks tasks as benchmarks, each with its current answer or its pre-labels as the reference (Managers). */
  | { kind: 'benchmark'; tasks: string[]; source: 'answer' | 'prelabels' }
  | { kind: 'unbenchmark'; tasks: string[] };

export function useBulkAction(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (action: BulkAction) => {
      const params = { path: { projectId } };
      switch (action.kind) {
        case 'requeue':
          return unwrap<Record<string, unknown>>(
            'POST',
            '/v2/project/{projectId}/requeueTasks',
            api.POST('/v2/project/{projectId}/requeueTasks', {
              params,
              body: { toStageId: action.toStageId, filters: action.filters },
            }),
          );
        case 'priority':
          return unwrap<Record<string, unknown>>(
            'POST',
            '/v2/project/{projectId}/updatePriority',
            api.POST('/v2/project/{projectId}/updatePriority', {
              params,
              body: { priority: action.priority, filters: action.filters },
            }),
          );
        case 'assign':
          return unwrap<Record<string, unknown>>(
            'POST',
            '/v2/task/assign',
            api.POST('/v2/task/assign', {
              // No user: the tasks are unassigned.
              body: {
                project: projectId,
                stage: action.stage,
                tasks: action.tasks,
                ...(action.user ? { user: action.user } : {}),
              },
            }),
          );
        case 'forward':
          return unwrap<Record<string, unknown>>(
            'POST',
            '/v2/project/{projectId}/forward',
            api.POST('/v2/project/{projectId}/forward', {
              params,
              body: {
                stageId: action.stageId,
                ...(action.taskIds ? { taskIds: action.taskIds } : {}),
                ...(action.batches ? { batches: action.batches } : {}),
              },
            }),
          );
        case 'benchmark':
          return unwrap<Record<string, unknown>>(
            'POST',
            '/v2/project/{projectId}/benchmarks',
            api.POST('/v2/project/{projectId}/benchmarks', {
              params,
              body: { tasks: action.tasks, source: action.source },
            }),
          );
        case 'unbenchmark':
          return unwrap<Record<string, unknown>>(
            'DELETE',
            '/v2/project/{projectId}/benchmarks',
            api.DELETE('/v2/project/{projectId}/benchmarks', { params, body: { tasks: action.tasks } }),
          );
      }
    },
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['tasks', projectId] }),
        queryClient.invalidateQueries({ queryKey: ['task'] }),
        queryClient.invalidateQueries({ queryKey: ['workflow', projectId] }),
      ]),
  });
}

/** One task as `GET /task/{id}` answers it. */
export type TaskDetail = Schemas['Task'];

export type TaskHistoryEntry = Schemas['TaskHistoryEntry'];

export type TaskIssue = Schemas['Issue'];

export function useTask(taskId: string) {
  return useQuery({
    queryKey: ['task', taskId],
    queryFn: () =>
      unwrap<{ task: TaskDetail }>(
        'GET',
        '/v2/task/{taskId}',
        api.GET('/v2/task/{taskId}', { params: { path: { taskId } } }),
      ).then((d) => d.task),
  });
}

/** GET /task/{id}/history (callers with `readAll`: Reviewers and above). */
export function useTaskHistory(taskId: string) {
  return useQuery({
    queryKey: ['task', taskId, 'history'],
    queryFn: () =>
      unwrap<{ taskHistory: TaskHistoryEntry[] }>(
        'GET',
        '/v2/task/{taskId}/history',
        api.GET('/v2/task/{taskId}/history', { params: { path: { taskId } } }),
      ).then((d) => d.taskHistory),
  });
}

/** The task's issues, open and resolved (the list's largest page: a task rarely has more). */
export function useTaskIssues(taskId: string) {
  return useQuery({
    queryKey: ['task', taskId, 'issues'],
    queryFn: () =>
      unwrap<{ issues: TaskIssue[]; total: number }>(
        'GET',
        '/v2/issues',
        api.GET('/v2/issues', { params: { query: { labelTask: taskId, limit: 100, sort: 'createdAt' } } }),
      ),
  });
}
