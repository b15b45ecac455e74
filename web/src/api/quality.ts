import { useQuery } from '@tanstack/react-query';
import type { ApiData } from '../../../src/client/types';
import { api, unwrap } from './client';
import type { OverviewFilter } from './metrics';

/** The Quality page's numbers (`POST /project/{id}/quality`), as the document types them. */
export type QualityReport = ApiData<'/v2/project/{projectId}/quality', 'post'>;

export function useQualityReport(projectId: string, filter: OverviewFilter) {
  return useQuery({
    queryKey: ['quality', projectId, filter],
    queryFn: () =>
      unwrap<QualityReport>(
        'POST',
        '/v2/project/{projectId}/quality',
        api.POST('/v2/project/{projectId}/quality', { params: { path: { projectId } }, body: filter }),
      ),
    refetchInterval: 30_000,
  });
}
