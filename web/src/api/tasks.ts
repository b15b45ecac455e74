import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';

export interface TaskRow {
  _id: string;
  externalId?: string;
  stage?: string;
  status?: string;
  priority?: number;
  assignee?: string;
  reviewStatus?: string;
  createdAt?: string;
  updatedAt?: string;
}

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

const FIELDS = '_id,externalId,stage,status,priority,assignee,reviewStatus,createdAt,updatedAt';

export function useTaskList(projectId: string, q: { page: number; limit: number; sort: string; filters: TaskFilters }) {
  const filter = filterJson(q.filters);
  return useQuery({
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
    placeholderData: keepPreviousData,
  });
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
  | { kind: 'assign'; stage: string; user: string; tasks: string[] };

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
              body: { project: projectId, stage: action.stage, user: action.user, tasks: action.tasks },
            }),
          );
      }
    },
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['tasks', projectId] }),
        queryClient.invalidateQueries({ queryKey: ['workflow', projectId] }),
      ]),
  });
}
