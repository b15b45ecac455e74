import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ProjectIdParams } from '../../schemas/asset.js';
import { InstructionsQuery, SignedUrlQuery, UploadUrlQuery } from '../../schemas/file.js';
import * as chat from '../../services/assets/chat.service.js';
import * as files from '../../services/files/file.service.js';
import * as instructions from '../../services/files/instructions.service.js';
import { formParts, parseUrlEncoded } from '../form-parts.js';
import { linkBase } from '../link-base.js';
import { principalOf } from '../plugins/auth.js';
import { created, ok } from '../reply.js';

const tags = ['files'];
const consumes = ['multipart/form-data', 'application/x-www-form-urlencoded', 'application/json'];

/** Signed upload and read URLs of the file store, instructions files and chat assets. */
export const uploadRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  // Multipart uploads (instructions, chat files): past the upload limit a file part fails with
  // 413. Registered here, not on the app: its hooks then run on these routes only.
  app.removeContentTypeParser('multipart/form-data');
  await app.register(multipart, { limits: { fileSize: ctx.config.uploadLimit } });
  // Python requests posts a form without a file url-encoded [client: upload_chat_assets].
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: ctx.config.bodyLimit },
    (_req, body, done) => done(null, parseUrlEncoded(String(body))),
  );

  app.get('/getUploadUrl', { schema: { tags, querystring: UploadUrlQuery } }, async (req) =>
    ok(await files.getUploadUrl(ctx, principalOf(req), req.query, linkBase(ctx, req))),
  );

  app.get('/getSignedUrl', { schema: { tags, querystring: SignedUrlQuery } }, async (req) =>
    ok(await files.getSignedUrl(ctx, principalOf(req), req.query, linkBase(ctx, req))),
  );

  app.post(
    '/project/:projectId/instructions',
    {
      schema: {
        tags,
        description: 'Multipart `file` (.pdf .png .jpg .jpeg .txt .md .html .mp4); optional `storageId`, `bucket`.',
        consumes: ['multipart/form-data'],
        params: ProjectIdParams,
        querystring: InstructionsQuery,
      },
    },
    async (req) => {
      const form = formParts(req, ctx.config.uploadLimit);
      const p = principalOf(req);
      return ok(
        await instructions.uploadInstructions(ctx, p, req.params.projectId, form, req.query, linkBase(ctx, req)),
      );
    },
  );

  const chatDescription =
    'Form fields: `file` (JSON array, object or NDJSON of conversations) or `numberOfConversations`; ' +
    '`namingStrategy` (random, index, fileName); `priority`.';
  const chatSchema = { tags, description: chatDescription, consumes, params: ProjectIdParams };
  app.post('/project/:projectId/chat', { schema: chatSchema }, async (req, reply) => {
    const form = formParts(req, ctx.config.uploadLimit);
    const p = principalOf(req);
    return created(reply, await chat.createChatAssets(ctx, p, req.params.projectId, form, linkBase(ctx, req)));
  });
};
