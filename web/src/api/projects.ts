import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiBody } from '../../../src/client/types';
import { api, unwrap } from './client';
import type { Project, ProjectListItem, ProjectRole } from './types';

export interface ProjectListOptions {
  /** Only archived projects (true) or only active ones (false). */
  archived: boolean;
  /** Each item with the caller's role and the live task counts (the project list's progress). */
  counts?: boolean;
}

export const projectKeys = {
  all: ['projects'] as const,
  list: (page: number, limit: number, search: string, options: ProjectListOptions) =>
    ['projects', 'list', page, limit, search, options] as const,
  one: (id: string) => ['projects', 'one', id] as const,
};

export function useProjectList(
  page: number,
  limit: number,
  search: string,
  options: ProjectListOptions = { archived: false },
) {
  return useQuery({
    queryKey: projectKeys.list(page, limit, search, options),
    queryFn: () =>
      unwrap<{ projects: ProjectListItem[]; total: number }>(
        'GET',
        '/v2/listProjects',
        api.GET('/v2/listProjects', {
          params: {
            query: {
              page,
              limit,
              sort: 'name',
              archived: String(options.archived),
              ...(options.counts ? { counts: 'true' } : {}),
              ...(search ? { name: search } : {}),
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** DELETE /project/{id}: the contract's soft delete; the project leaves every list. */
export function useDeleteProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (projectId: string) =>
      unwrap<unknown>(
        'DELETE',
        '/v2/project/{projectId}',
        api.DELETE('/v2/project/{projectId}', { params: { path: { projectId } } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectKeys.all }),
  });
}

/** Archives a project (or brings it back): `{archived}` on the update operation, an extension. */
export function useArchiveProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ projectId, archived }: { projectId: string; archived: boolean }) =>
      unwrap<unknown>(
        'POST',
        '/v2/project/{projectId}',
        api.POST('/v2/project/{projectId}', { params: { path: { projectId } }, body: { archived } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectKeys.all }),
  });
}

/** GET /project/{id} as a query: `useProject`, or a fetch started early where the id is known first. */
export const projectQuery = (projectId: string) => ({
  queryKey: projectKeys.one(projectId),
  queryFn: async () =>
    (
      await unwrap<{ project: Project }>(
        'GET',
        '/v2/project/{projectId}',
        api.GET('/v2/project/{projectId}', { params: { path: { projectId } } }),
      )
    ).project,
});

export function useProject(projectId: string) {
  return useQuery(projectQuery(projectId));
}

export function useCreateProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: { name: string; description?: string }) =>
      (await unwrap<{ project: Project }>('POST', '/v2/project', api.POST('/v2/project', { body }))).project,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectKeys.all }),
  });
}

type ProjectUpdate = ApiBody<'/v2/project/{projectId}', 'post'>;

/** Writes some fields of the project (settings, ontology, workflow); the answer is the new project. */
export function useUpdateProject(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (changes: Partial<Omit<Project, '_id' | 'createdAt' | 'updatedAt'>>) =>
      (
        await unwrap<{ project: Project }>(
          'POST',
          '/v2/project/{projectId}',
          // The console's shapes are the document's, read by hand (types.ts) while the document's
          // answers are still untyped: the one cast between the two.
          api.POST('/v2/project/{projectId}', { params: { path: { projectId } }, body: changes as ProjectUpdate }),
        )
      ).project,
    onSuccess: (project) => {
      queryClient.setQueryData(projectKeys.one(projectId), project);
      // New stages get their live counts now, not at the next poll.
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: ['projects', 'list'] }),
        queryClient.invalidateQueries({ queryKey: ['workflow', projectId] }),
      ]);
    },
  });
}

export function useAssignMembers(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { assignees: string[]; role: ProjectRole }) =>
      unwrap<unknown>(
        'POST',
        '/v2/project/{projectId}/assigned',
        api.POST('/v2/project/{projectId}/assigned', { params: { path: { projectId } }, body }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectKeys.one(projectId) }),
  });
}
