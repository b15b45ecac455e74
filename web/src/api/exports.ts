import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiData, ApiQuery } from '../../../src/client/types';
import { api, unwrap } from './client';

/**
 * Project exports (GET /v2/exportV3, docs/exports-and-metrics.md): the request writes the whole
 * zip on the server and answers a link that needs no key, good for 24 hours. The project's
 * history of exports is the server's (GET /v2/project/{id}/exports), so every Manager sees it.
 */

export type ExportQuery = ApiQuery<'/v2/exportV3', 'get'>;
export type ExportAnswer = ApiData<'/v2/exportV3', 'get'>;
export type ExportRecord = ApiData<'/v2/project/{projectId}/exports', 'get'>['exports'][number];

const historyKey = (projectId: string) => ['exports', projectId] as const;

export function useRunExport(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (query: ExportQuery) =>
      unwrap<ExportAnswer>('GET', '/v2/exportV3', api.GET('/v2/exportV3', { params: { query } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: historyKey(projectId) }),
  });
}

export function useExportHistory(projectId: string) {
  return useQuery({
    queryKey: historyKey(projectId),
    queryFn: () =>
      unwrap<{ exports: ExportRecord[]; total: number }>(
        'GET',
        '/v2/project/{projectId}/exports',
        api.GET('/v2/project/{projectId}/exports', { params: { path: { projectId }, query: { limit: 20 } } }),
      ),
  });
}
