import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import {
  AssetIdParams,
  AssetSizeRequest,
  AssignBatchesRequest,
  BatchesRequest,
  DeleteAssetsRequest,
  ListAssetsQuery,
  ProjectIdParams,
} from '../../schemas/asset.js';
import { fillAssetSize } from '../../services/assets/asset-headers.service.js';
import * as assetList from '../../services/assets/asset-list.service.js';
import * as batches from '../../services/projects/batch.service.js';
import { principalOf } from '../plugins/auth.js';
import { assetImportRoutes } from './asset-import.routes.js';
import { created, ok } from '../reply.js';

export const assetRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['assets'];
  await app.register(assetImportRoutes, { ctx });
  app.get(
    '/project/:projectId/assets',
    { schema: { tags, params: ProjectIdParams, querystring: ListAssetsQuery } },
    async (req) => {
      const { page = 1, limit = 10, filters } = req.query;
      return ok(await assetList.listAssets(ctx, principalOf(req), req.params.projectId, { page, limit, filters }));
    },
  );
  app.delete(
    '/project/:projectId/assets',
    { schema: { tags, params: ProjectIdParams, body: DeleteAssetsRequest } },
    async (req) => ok(await assetList.deleteAssets(ctx, principalOf(req), req.params.projectId, req.body.assets)),
  );
  app.put('/asset/:assetId/size', { schema: { tags, params: AssetIdParams, body: AssetSizeRequest } }, async (req) =>
    ok(await fillAssetSize(ctx, principalOf(req), req.params.assetId, req.body)),
  );

  const batchTags = ['batches'];
  app.get('/batches/:projectId', { schema: { tags: batchTags, params: ProjectIdParams } }, async (req) =>
    ok(await batches.getBatches(ctx, principalOf(req), req.params.projectId)),
  );
  app.post(
    '/batches/:projectId',
    { schema: { tags: batchTags, params: ProjectIdParams, body: BatchesRequest } },
    async (req, reply) =>
      created(reply, await batches.postBatches(ctx, principalOf(req), req.params.projectId, req.body.batches)),
  );
  app.post('/assignBatches', { schema: { tags: batchTags, body: AssignBatchesRequest } }, async (req) =>
    ok(
      await batches.assignBatches(ctx, principalOf(req), {
        batches: req.body.batches,
        assets: req.body.assets,
        project: req.body.project ?? req.body.projectId,
      }),
    ),
  );
};
