import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ProjectIdParams } from '../../schemas/asset.js';
import {
  RerunWebhookRequest,
  RerunWebhookResponse,
  StageStatusResponse,
  WebhookLogsQuery,
  WebhookLogsResponse,
} from '../../schemas/webhook.js';
import { stageStatus } from '../../services/stages/stage-status.service.js';
import { listWebhookLogs, rerunWebhook } from '../../services/webhooks/webhook.service.js';
import { principalOf } from '../plugins/auth.js';
import { ok } from '../reply.js';

/** The running workflow: stage status with warnings, webhook re-runs and the delivery log. */
export const workflowRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['workflow'];
  app.get(
    '/project/:projectId/stages',
    { schema: { tags, params: ProjectIdParams, response: { 200: StageStatusResponse } } },
    async (req) => ok(await stageStatus(ctx, principalOf(req), req.params.projectId)),
  );
  app.post(
    '/project/:projectId/rerun-webhook',
    {
      schema: { tags, params: ProjectIdParams, body: RerunWebhookRequest, response: { 200: RerunWebhookResponse } },
      // The body is optional as a whole: no body re-runs every Webhook stage.
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
    },
    async (req) => {
      const stageId = req.body?.stageId;
      return ok(
        await rerunWebhook(ctx, principalOf(req), req.params.projectId, stageId === undefined ? {} : { stageId }),
      );
    },
  );
  app.get(
    '/project/:projectId/webhookLogs',
    {
      schema: { tags, params: ProjectIdParams, querystring: WebhookLogsQuery, response: { 200: WebhookLogsResponse } },
    },
    async (req) => {
      const { page = 1, limit = 10, stageId } = req.query;
      return ok(await listWebhookLogs(ctx, principalOf(req), req.params.projectId, { page, limit, stageId }));
    },
  );
};
