import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import type { StageStatus, WebhookLogEntry } from './types';

/** How often the editor asks for live counts and warnings (the issue allows 5 s at most). */
export const STATUS_POLL_MS = 4000;

export const workflowKeys = {
  status: (projectId: string) => ['workflow', projectId, 'status'] as const,
  logs: (projectId: string, stageId: string, page: number) => ['workflow', projectId, 'logs', stageId, page] as const,
};

export function useStageStatus(projectId: string) {
  return useQuery({
    queryKey: workflowKeys.status(projectId),
    queryFn: async () =>
      (
        await unwrap<{ stages: StageStatus[] }>(
          'GET',
          '/v2/project/{projectId}/stages',
          api.GET('/v2/project/{projectId}/stages', { params: { path: { projectId } } }),
        )
      ).stages,
    refetchInterval: STATUS_POLL_MS,
  });
}

export function useWebhookLogs(projectId: string, stageId: string, page: number) {
  return useQuery({
    queryKey: workflowKeys.logs(projectId, stageId, page),
    queryFn: () =>
      unwrap<{ logs: WebhookLogEntry[]; total: number }>(
        'GET',
        '/v2/project/{projectId}/webhookLogs',
        api.GET('/v2/project/{projectId}/webhookLogs', {
          params: { path: { projectId }, query: { stageId, page, limit: 10 } },
        }),
      ),
    refetchInterval: STATUS_POLL_MS,
  });
}

type RerunAnswer = { webhook?: { queued: number; alreadyQueued: number } };

/** Sends a Webhook stage's waiting tasks again, or runs a Plugin stage's waiting tasks again. */
export function useRerunStage(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ stageId, type }: { stageId: string; type: 'Webhook' | 'Plugin' }) => {
      const params = { path: { projectId } };
      const answer =
        type === 'Webhook'
          ? await unwrap<RerunAnswer>(
              'POST',
              '/v2/project/{projectId}/rerun-webhook',
              api.POST('/v2/project/{projectId}/rerun-webhook', { params, body: { stageId } }),
            )
          : await unwrap<RerunAnswer>(
              'POST',
              '/v2/project/{projectId}/rerun-plugin',
              api.POST('/v2/project/{projectId}/rerun-plugin', { params, body: { stageId } }),
            );
      return answer.webhook;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['workflow', projectId] }),
  });
}
