import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiBody, ApiData } from '../../../src/client/types';
import { api, unwrap } from './client';

/**
 * The organization page's calls: members and invites, storages and their files, plugins and
 * their log, and the caller's own API key. Answers are typed by the generated document.
 */

export type OrgUser = ApiData<'/v2/organization/{orgId}/users', 'get'>['users'][number];
export type Invite = ApiData<'/v2/organization/{orgId}/invites', 'get'>['invites'][number];
export type InviteBody = ApiBody<'/v2/organization/{orgId}/invites', 'post'>;
export type InviteAnswer = ApiData<'/v2/organization/{orgId}/invites', 'post'>;
export type AssignableOrgRole = 'admin' | 'member';
export type Storage = ApiData<'/v2/storages', 'get'>['storages'][number];
export type StorageBody = ApiBody<'/v2/storages', 'post'>;
export type Plugin = ApiData<'/v2/plugins', 'get'>['plugins'][number];
export type PluginLogEntry = ApiData<'/v2/pluginLog', 'get'>['logs'][number];

export const orgKeys = {
  users: (orgId: string) => ['org', orgId, 'users'] as const,
  invites: (orgId: string) => ['org', orgId, 'invites'] as const,
  storages: (page: number) => ['org', 'storages', page] as const,
  plugins: (page: number) => ['org', 'plugins', page] as const,
};

const orgPath = (orgId: string) => ({ params: { path: { orgId } } });

export function useOrgUsers(orgId: string) {
  return useQuery({
    queryKey: orgKeys.users(orgId),
    queryFn: () =>
      unwrap<ApiData<'/v2/organization/{orgId}/users', 'get'>>(
        'GET',
        '/v2/organization/{orgId}/users',
        api.GET('/v2/organization/{orgId}/users', orgPath(orgId)),
      ),
    retry: false,
  });
}

/** Adds people, or changes the organization role of those already in it (the API's one write). */
export function useSetOrgRole(orgId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (user: { email: string; organizationRole: AssignableOrgRole }) =>
      unwrap<unknown>(
        'POST',
        '/v2/organization/{orgId}/users',
        api.POST('/v2/organization/{orgId}/users', { ...orgPath(orgId), body: { users: [user] } }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: orgKeys.users(orgId) }),
  });
}

export function useRemoveOrgUser(orgId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (email: string) =>
      unwrap<unknown>(
        'DELETE',
        '/v2/organization/{orgId}/users',
        api.DELETE('/v2/organization/{orgId}/users', { ...orgPath(orgId), body: { users: [email] } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: orgKeys.users(orgId) }),
  });
}

export function useInvites(orgId: string) {
  return useQuery({
    queryKey: orgKeys.invites(orgId),
    queryFn: () =>
      unwrap<ApiData<'/v2/organization/{orgId}/invites', 'get'>>(
        'GET',
        '/v2/organization/{orgId}/invites',
        api.GET('/v2/organization/{orgId}/invites', orgPath(orgId)),
      ),
    retry: false,
  });
}

export function useCreateInvites(orgId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: InviteBody) =>
      unwrap<InviteAnswer>(
        'POST',
        '/v2/organization/{orgId}/invites',
        api.POST('/v2/organization/{orgId}/invites', { ...orgPath(orgId), body }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: orgKeys.invites(orgId) }),
  });
}

export function useDeleteInvite(orgId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (email: string) =>
      unwrap<unknown>(
        'DELETE',
        '/v2/organization/{orgId}/invites',
        api.DELETE('/v2/organization/{orgId}/invites', { ...orgPath(orgId), body: { invites: [email] } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: orgKeys.invites(orgId) }),
  });
}

export function useStorages(page: number, limit: number) {
  return useQuery({
    queryKey: [...orgKeys.storages(page), limit],
    queryFn: () =>
      unwrap<ApiData<'/v2/storages', 'get'>>(
        'GET',
        '/v2/storages',
        api.GET('/v2/storages', { params: { query: { page, limit } } }),
      ),
    placeholderData: keepPreviousData,
    retry: false,
  });
}

export function useCreateStorage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: StorageBody) =>
      unwrap<ApiData<'/v2/storages', 'post'>>('POST', '/v2/storages', api.POST('/v2/storages', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['org', 'storages'] }),
  });
}

export function useDeleteStorage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (storageId: string) =>
      unwrap<unknown>(
        'DELETE',
        '/v2/storages/{storageId}',
        api.DELETE('/v2/storages/{storageId}', { params: { path: { storageId } } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['org', 'storages'] }),
  });
}

/** One folder level of a bucket, as POST /file-explorer answers it (docs/storages.md). */
export interface FolderLevel {
  folder: string;
  folders: { name: string; path: string }[];
  files: { name: string; key: string }[];
  scrollToken: string | null;
}

export interface ExploreInput {
  storageId: string;
  bucket: string;
  folder: string;
  extensions?: string[];
  scrollToken?: string;
  limit?: number;
}

export const exploreFolder = (input: ExploreInput) =>
  unwrap<FolderLevel>('POST', '/v2/file-explorer', api.POST('/v2/file-explorer', { body: input }));

export interface FolderImportAnswer {
  upload: { queued: false; assetsCreated: number; skipped: number } | { queued: true; jobId: string };
}

export function useImportFolder() {
  return useMutation({
    mutationFn: (input: Omit<ExploreInput, 'scrollToken' | 'limit'> & { projectId: string; batches?: string[] }) =>
      unwrap<FolderImportAnswer>(
        'POST',
        '/v2/file-explorer',
        api.POST('/v2/file-explorer', { body: { ...input, upload: true } }),
      ),
  });
}

export function usePlugins(page: number, limit: number) {
  return useQuery({
    queryKey: [...orgKeys.plugins(page), limit],
    queryFn: () =>
      unwrap<ApiData<'/v2/plugins', 'get'>>(
        'GET',
        '/v2/plugins',
        api.GET('/v2/plugins', { params: { query: { page, limit } } }),
      ),
    placeholderData: keepPreviousData,
    retry: false,
  });
}

export function useCreatePlugin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ApiBody<'/v2/plugins', 'post'>) =>
      unwrap<ApiData<'/v2/plugins', 'post'>>('POST', '/v2/plugins', api.POST('/v2/plugins', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['org', 'plugins'] }),
  });
}

export function useDeletePlugin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (pluginId: string) =>
      unwrap<unknown>(
        'DELETE',
        '/v2/plugins/{pluginId}',
        api.DELETE('/v2/plugins/{pluginId}', { params: { path: { pluginId } } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['org', 'plugins'] }),
  });
}

/** A project's plugin log, newest first, optionally of one stage. */
export function usePluginLog(project: string, stageId: string, page: number, limit: number) {
  return useQuery({
    queryKey: ['pluginLog', project, stageId, page, limit],
    queryFn: () =>
      unwrap<ApiData<'/v2/pluginLog', 'get'>>(
        'GET',
        '/v2/pluginLog',
        api.GET('/v2/pluginLog', {
          params: { query: { project, page, limit, sort: '-createdAt', ...(stageId ? { stageId } : {}) } },
        }),
      ),
    enabled: project !== '',
    placeholderData: keepPreviousData,
    retry: false,
    refetchInterval: 10_000,
  });
}

/** A new API key for the signed-in person; the old one stops working at once. */
export function useNewApiKey() {
  return useMutation({
    mutationFn: () =>
      unwrap<ApiData<'/v2/session/api-key', 'post'>>('POST', '/v2/session/api-key', api.POST('/v2/session/api-key')),
  });
}

export type OrgSettings = ApiData<'/v2/organization/{orgId}/settings', 'get'>['settings'];

/** The organization's sign-in settings (owners and admins). */
export function useOrgSettings(orgId: string) {
  return useQuery({
    queryKey: ['org', orgId, 'settings'] as const,
    queryFn: () =>
      unwrap<ApiData<'/v2/organization/{orgId}/settings', 'get'>>(
        'GET',
        '/v2/organization/{orgId}/settings',
        api.GET('/v2/organization/{orgId}/settings', orgPath(orgId)),
      ),
    retry: false,
  });
}

export function useUpdateOrgSettings(orgId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ApiBody<'/v2/organization/{orgId}/settings', 'post'>) =>
      unwrap<ApiData<'/v2/organization/{orgId}/settings', 'post'>>(
        'POST',
        '/v2/organization/{orgId}/settings',
        api.POST('/v2/organization/{orgId}/settings', { ...orgPath(orgId), body }),
      ),
    onSuccess: (data) => queryClient.setQueryData(['org', orgId, 'settings'], data),
  });
}
