import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { PaginationQuery } from '../../schemas/common.js';
import { ExportDownloadParams, ExportQuery, OverviewParams } from '../../schemas/export.js';
import { listExports } from '../../services/exports/export-records.js';
import { createExport, openExportDownload } from '../../services/exports/export.service.js';
import { projectMetric } from '../../services/metrics/metrics.service.js';
import { linkBase } from '../link-base.js';
import { principalOf } from '../plugins/auth.js';
import { ok } from '../reply.js';

/** What users take out of a project: exports (and their key-less downloads) and overview metrics. */
export const exportRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  for (const url of ['/export', '/exportV3']) {
    app.get(
      url,
      {
        schema: {
          tags: ['exports'],
          querystring: ExportQuery,
          description:
            'Writes a zip of the project (one JSON or NDJSON entry) and answers a key-less link to it that expires.',
        },
      },
      async (req) => ok(await createExport(ctx, principalOf(req), req.query, linkBase(ctx, req))),
    );
  }

  app.get(
    '/project/:projectId/exports',
    {
      schema: {
        tags: ['exports'],
        params: Type.Object({ projectId: Type.String({ maxLength: 64 }) }),
        querystring: PaginationQuery(100),
      },
    },
    async (req) => {
      const { page = 1, limit = 20 } = req.query;
      return ok(await listExports(ctx, principalOf(req), req.params.projectId, { page, limit }, linkBase(ctx, req)));
    },
  );

  // The signed path is the credential: no API key, not rate limited (like the file store's links).
  app.get(
    '/exports/:expires/:signature/:file',
    {
      config: { public: true, unlimited: true },
      schema: { tags: ['exports'], params: ExportDownloadParams, security: [], description: 'The zip of an export.' },
    },
    async (req, reply) => {
      const { stream, size, fileName } = await openExportDownload(ctx, req.params);
      return reply
        .header('content-type', 'application/zip')
        .header('content-length', String(size))
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .header('cache-control', 'private, no-store')
        .send(stream);
    },
  );

  app.get('/:projectId/overview/:metric', { schema: { tags: ['metrics'], params: OverviewParams } }, async (req) =>
    ok(await projectMetric(ctx, principalOf(req), req.params.projectId, req.params.metric)),
  );
};
