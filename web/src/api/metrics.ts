import { useQuery } from '@tanstack/react-query';
import type { ApiData } from '../../../src/client/types';
import { api, unwrap } from './client';

type OverviewData = ApiData<'/v2/{projectId}/overview/{metric}', 'get'>;

/** The six overview metrics, each as the document types it (docs/exports-and-metrics.md). */
export type Metrics = { [K in keyof OverviewData]-?: NonNullable<OverviewData[K]> };

export type MetricName = keyof Metrics;

export function useMetric<M extends MetricName>(projectId: string, metric: M) {
  return useQuery({
    queryKey: ['metrics', projectId, metric],
    queryFn: async () => {
      const data = await unwrap<Record<string, unknown>>(
        'GET',
        '/v2/{projectId}/overview/{metric}',
        api.GET('/v2/{projectId}/overview/{metric}', { params: { path: { projectId, metric } } }),
      );
      return data[metric] as Metrics[M];
    },
    refetchInterval: 30_000,
  });
}

/** One person's work in one stage (`POST /performance/{projectId}`), as the document types it. */
export type PerformanceRow = ApiData<'/v2/performance/{projectId}', 'post'>['performance'][number];

/** The overview's filter: `[from, to)` as ISO date-times (omitted: all time), and batch ids. */
export interface OverviewFilter {
  interval?: [string, string];
  batches?: string[];
}

export function usePerformance(projectId: string, filter: OverviewFilter) {
  return useQuery({
    queryKey: ['performance', projectId, filter],
    queryFn: () =>
      unwrap<{ performance: PerformanceRow[]; total: number }>(
        'POST',
        '/v2/performance/{projectId}',
        api.POST('/v2/performance/{projectId}', { params: { path: { projectId } }, body: filter }),
      ),
    refetchInterval: 30_000,
  });
}
