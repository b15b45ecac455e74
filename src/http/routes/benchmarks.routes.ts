import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ProjectIdParams } from '../../schemas/asset.js';
import {
  BenchmarkTaskParams,
  MarkBenchmarksRequest,
  ResumeLabelerRequest,
  SubmissionsQuery,
  UnmarkBenchmarksRequest,
} from '../../schemas/benchmark.js';
import * as results from '../../services/quality/benchmark-results.service.js';
import * as benchmarks from '../../services/quality/benchmark.service.js';
import { qualityReport } from '../../services/quality/quality-report.service.js';
import { QualityRequest, QualityResponse } from '../../schemas/quality.js';
import { principalOf } from '../plugins/auth.js';
import { ok } from '../reply.js';

/** Benchmark (gold) tasks: an extension, documented in docs/api.md. Managers only. */
export const benchmarkRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['quality'];
  app.post(
    '/project/:projectId/benchmarks',
    {
      schema: {
        tags,
        params: ProjectIdParams,
        body: MarkBenchmarksRequest,
      },
    },
    async (req) => ok(await benchmarks.markBenchmarks(ctx, principalOf(req), req.params.projectId, req.body)),
  );
  app.delete(
    '/project/:projectId/benchmarks',
    {
      schema: {
        tags,
        params: ProjectIdParams,
        body: UnmarkBenchmarksRequest,
      },
    },
    async (req) => ok(await benchmarks.unmarkBenchmarks(ctx, principalOf(req), req.params.projectId, req.body)),
  );
  app.get('/project/:projectId/benchmarks/:taskId', { schema: { tags, params: BenchmarkTaskParams } }, async (req) =>
    ok(await benchmarks.getReference(ctx, principalOf(req), req.params.projectId, req.params.taskId)),
  );
  app.post(
    '/project/:projectId/benchmarks/resume',
    { schema: { tags, params: ProjectIdParams, body: ResumeLabelerRequest } },
    async (req) => ok(await results.resumeLabeler(ctx, principalOf(req), req.params.projectId, req.body.labeler)),
  );
  app.get(
    '/project/:projectId/benchmarkSubmissions',
    { schema: { tags, params: ProjectIdParams, querystring: SubmissionsQuery } },
    async (req) =>
      ok(await results.benchmarkSubmissions(ctx, principalOf(req), req.params.projectId, req.query.labeler)),
  );
  app.post(
    '/project/:projectId/quality',
    {
      schema: {
        tags,
        operationId: 'getProjectQuality',
        summary: "The Quality page's numbers over an interval and batches",
        description:
          "Each labeler's benchmark scores per day, consensus agreement per ontology item (IoU for objects, Cohen's kappa for questions), review rejection rates per reviewer and day, and issues per error code. Managers only. An extension, see docs/quality.md.",
        params: ProjectIdParams,
        body: QualityRequest,
        response: { 200: QualityResponse },
      },
    },
    async (req) => ok(await qualityReport(ctx, principalOf(req), req.params.projectId, req.body ?? {})),
  );
};
