import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ProjectIdParams } from '../../schemas/asset.js';
import { AssetBuilderTemplateRequest } from '../../schemas/asset-builder.js';
import { addAssetBuilderTemplate } from '../../services/projects/asset-builder.service.js';
import { FreeObject } from '../../schemas/common.js';
import { Success } from '../../schemas/envelope.js';
import { principalOf } from '../plugins/auth.js';
import { created } from '../reply.js';

/** Asset builder templates of a project [client]; the project answer lists them. */
export const assetBuilderRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/project/:projectId/assetBuilderTemplates',
    {
      schema: {
        tags: ['projects'],
        operationId: 'addAssetBuilderTemplate',
        summary: 'Add an asset builder template to the project',
        params: ProjectIdParams,
        body: AssetBuilderTemplateRequest,
        // The project's templates after the addition; documents kept as stored.
        response: { 201: Success(FreeObject) },
        description:
          "Adds an asset builder template (HTML with {{column}} placeholders) to the project's assetBuilderTemplates. Needs the Manager role.",
      },
    },
    async (req, reply) =>
      created(reply, await addAssetBuilderTemplate(ctx, principalOf(req), req.params.projectId, req.body)),
  );
};
