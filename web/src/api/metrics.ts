import { useQuery } from '@tanstack/react-query';
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
