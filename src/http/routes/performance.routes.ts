import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { PerformanceParams, PerformanceRequest, PerformanceResponse } from '../../schemas/performance.js';
import { performance } from '../../services/metrics/performance.service.js';
import { principalOf } from '../plugins/auth.js';
import { ok } from '../reply.js';

/** The [client]'s performance report: per person and stage, over an interval. */
export const performanceRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/performance/:projectId',
    {
      schema: {
        tags: ['metrics'],
        operationId: 'getPerformance',
        summary: 'Work per person and stage over an interval',
        params: PerformanceParams,
        body: PerformanceRequest,
        response: { 200: PerformanceResponse },
        description:
          'Per person and per stage: tasks submitted, reviewed, accepted, rejected, time spent (ms) and issues raised, from the task history and the issues. Needs a role that reads all tasks.',
      },
    },
    async (req) => ok(await performance(ctx, principalOf(req), req.params.projectId, req.body ?? {})),
  );
};
