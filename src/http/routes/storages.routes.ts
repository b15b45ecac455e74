import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ListFilesQuery, ListStoragesQuery, StorageCreateRequest, StorageIdParams } from '../../schemas/storage.js';
import * as storages from '../../services/storages/storage.service.js';
import { principalOf } from '../plugins/auth.js';
import { created, ok } from '../reply.js';

const tags = ['storages'];

/** `{status, data: {total, files: [...]}}`, streamed from the listing's spool. */
async function* filesEnvelope(listing: storages.FileListing): AsyncGenerator<string | Buffer> {
  yield `{"status":"success","data":{"total":${listing.total},"files":[`;
  yield* listing.chunks();
  yield ']}}';
}

export const storageRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/storages', { schema: { tags, querystring: ListStoragesQuery } }, async (req) =>
    ok(await storages.listStorages(ctx, principalOf(req), req.query)),
  );

  app.post('/storages', { schema: { tags, body: StorageCreateRequest } }, async (req, reply) =>
    created(reply, { storage: await storages.createStorage(ctx, principalOf(req), req.body) }),
  );

  app.delete('/storages/:storageId', { schema: { tags, params: StorageIdParams } }, async (req) =>
    ok(await storages.deleteStorage(ctx, principalOf(req), req.params.storageId)),
  );

  app.get(
    '/storages/:storageId/files',
    { schema: { tags, params: StorageIdParams, querystring: ListFilesQuery } },
    async (req, reply) => {
      const listing = await storages.listFiles(ctx, principalOf(req), req.params.storageId, req.query);
      return reply.type('application/json; charset=utf-8').send(Readable.from(filesEnvelope(listing)));
    },
  );
};
