import { useQuery } from '@tanstack/react-query';
import type { ApiData } from '../../../src/client/types';
import { api, unwrap } from './client';

/** The six overview metrics (docs/exports-and-metrics.md gives each one's shape). */
export interface Metrics {
  LabelStageGroups: { stageId: string; stageName: string; type: string | null; count: number }[];
  TimePerTask: {
    count: number;
    average: number | null;
    median: number | null;
    p90: number | null;
    stages: {
      stageId: string;
      stageName: string;
      count: number;
      average: number | null;
      median: number | null;
      p90: number | null;
    }[];
  };
  AnnotationStatus: Record<string, number>;
  AnswerDistribution: {
    classifications: {
      schemaId: string;
      title: string;
      total: number;
      answers: { value: string; count: number; label?: string }[];
    }[];
    tools: { schemaId: string; title: string; count: number }[];
  };
  ConsensusRanges: { from: number; to: number; count: number }[];
  AssetSize: {
    sizes: { width: string; height: string; count: number }[];
    fileTypes: { type: string; count: number }[];
  };
}

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
