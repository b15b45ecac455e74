import type { components } from '../../../src/client/schema';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { projectKeys } from './projects';

/** One asset of the project's list (uploads from the console keep `width`, `height` and `thumbnail` in `metadata`). */
export type AssetRow = components['schemas']['Asset'];

export interface AssetInput {
  data: string;
  externalId?: string;
  metadata?: Record<string, unknown>;
}

/** Which of `externalIds` the project already has (at most 100 at a time). */
export async function existingExternalIds(projectId: string, externalIds: string[]): Promise<Set<string>> {
  const filters = JSON.stringify({ externalId: externalIds });
  const page = await unwrap<{ assets: AssetRow[] }>(
    'GET',
    '/v2/project/{projectId}/assets',
    api.GET('/v2/project/{projectId}/assets', {
      params: { path: { projectId }, query: { page: 1, limit: externalIds.length, filters } },
    }),
  );
  return new Set(page.assets.map((a) => a.externalId));
}

/** Where to PUT a file of the project, and the lasting link to read it by (docs/files.md). */
export function uploadUrlFor(projectId: string, name: string, storageId?: string) {
  return unwrap<{ uploadUrl: string; readUrl: string }>(
    'GET',
    '/v2/getUploadUrl',
    api.GET('/v2/getUploadUrl', {
      params: { query: { project: projectId, name, type: 'assets', ...(storageId ? { storageId } : {}) } },
    }),
  );
}

export function useAssetList(projectId: string, page: number, limit: number) {
  return useQuery({
    queryKey: ['assets', projectId, page, limit],
    queryFn: () =>
      unwrap<{ assets: AssetRow[]; total: number }>(
        'GET',
        '/v2/project/{projectId}/assets',
        api.GET('/v2/project/{projectId}/assets', { params: { path: { projectId }, query: { page, limit } } }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** One import request: all of its assets and their tasks, or none. */
export function importChunk(projectId: string, assets: AssetInput[], batchIds: string[]) {
  return unwrap<{ assetsCreated?: number }>(
    'POST',
    '/v2/project/{projectId}/cloud',
    api.POST('/v2/project/{projectId}/cloud', {
      params: { path: { projectId }, query: batchIds.length ? { batches: JSON.stringify(batchIds) } : {} },
      body: { assets },
    }),
  );
}

export function useCreateBatch(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) =>
      unwrap<unknown>(
        'POST',
        '/v2/batches/{projectId}',
        api.POST('/v2/batches/{projectId}', { params: { path: { projectId } }, body: { batches: name } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectKeys.one(projectId) }),
  });
}

export function useAssignBatch(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { batch: string; assets: string[] }) =>
      unwrap<unknown>(
        'POST',
        '/v2/assignBatches',
        api.POST('/v2/assignBatches', { body: { project: projectId, batches: [input.batch], assets: input.assets } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['assets', projectId] }),
  });
}
