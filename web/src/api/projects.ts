import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './http';
import type { Project, ProjectListItem, ProjectRole } from './types';

export const projectKeys = {
  all: ['projects'] as const,
  list: (page: number, limit: number, search: string) => ['projects', 'list', page, limit, search] as const,
  one: (id: string) => ['projects', 'one', id] as const,
};

export function useProjectList(page: number, limit: number, search: string) {
  return useQuery({
    queryKey: projectKeys.list(page, limit, search),
    queryFn: () =>
      api<{ projects: ProjectListItem[]; total: number }>('GET', '/listProjects', {
        query: { page, limit, sort: 'name', name: search || undefined },
      }),
    placeholderData: keepPreviousData,
  });
}

export function useProject(projectId: string) {
  return useQuery({
    queryKey: projectKeys.one(projectId),
    queryFn: async () => (await api<{ project: Project }>('GET', `/project/${encodeURIComponent(projectId)}`)).project,
  });
}

export function useCreateProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: { name: string; description?: string }) =>
      (await api<{ project: Project }>('POST', '/project', { body: input })).project,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectKeys.all }),
  });
}

/** Writes some fields of the project (settings, ontology, workflow); the answer is the new project. */
export function useUpdateProject(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (changes: Partial<Omit<Project, '_id' | 'createdAt' | 'updatedAt'>>) =>
      (await api<{ project: Project }>('POST', `/project/${encodeURIComponent(projectId)}`, { body: changes })).project,
    onSuccess: (project) => {
      queryClient.setQueryData(projectKeys.one(projectId), project);
      return queryClient.invalidateQueries({ queryKey: ['projects', 'list'] });
    },
  });
}

export function useAssignMembers(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { assignees: string[]; role: ProjectRole }) =>
      api<unknown>('POST', `/project/${encodeURIComponent(projectId)}/assigned`, { body: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectKeys.one(projectId) }),
  });
}
