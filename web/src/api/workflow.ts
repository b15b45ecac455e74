import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './http';
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
      (await api<{ stages: StageStatus[] }>('GET', `/project/${encodeURIComponent(projectId)}/stages`)).stages,
    refetchInterval: STATUS_POLL_MS,
  });
}

export function useWebhookLogs(projectId: string, stageId: string, page: number) {
  return useQuery({
    queryKey: workflowKeys.logs(projectId, stageId, page),
    queryFn: () =>
      api<{ logs: WebhookLogEntry[]; total: number }>('GET', `/project/${encodeURIComponent(projectId)}/webhookLogs`, {
        query: { stageId, page, limit: 10 },
      }),
    refetchInterval: STATUS_POLL_MS,
  });
}

/** Sends a Webhook stage's waiting tasks again, or runs a Plugin stage's waiting tasks again. */
export function useRerunStage(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ stageId, type }: { stageId: string; type: 'Webhook' | 'Plugin' }) => {
      const path = `/project/${encodeURIComponent(projectId)}/${type === 'Webhook' ? 'rerun-webhook' : 'rerun-plugin'}`;
      const data = await api<{ webhook?: { queued: number; alreadyQueued: number } }>('POST', path, {
        body: { stageId },
      });
      return data.webhook;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['workflow', projectId] }),
  });
}
