import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { FileExplorerRequest } from '../../schemas/file-explorer.js';
import { fileExplorer } from '../../services/assets/file-explorer.service.js';
import { FreeObject } from '../../schemas/common.js';
import { Success } from '../../schemas/envelope.js';
import { linkBase } from '../link-base.js';
import { principalOf } from '../plugins/auth.js';
import { ok } from '../reply.js';

/** The [client]'s file explorer over an organization's storages. */
export const fileExplorerRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/file-explorer',
    {
      schema: {
        tags: ['storages'],
        operationId: 'exploreStorage',
        summary: 'Browse a storage one folder level at a time, or import its files',
        body: FileExplorerRequest,
        // A folder level (folders, files, scrollToken) or what the import queued or wrote.
        response: { 200: Success(FreeObject) },
        description:
          'Browses a storage one folder level at a time (folders and files, paged by scrollToken), or with upload: true imports the chosen files or the whole folder into projectId; more than 1000 files are imported by a background job.',
      },
    },
    async (req) => ok(await fileExplorer(ctx, principalOf(req), req.body, linkBase(ctx, req))),
  );
};
