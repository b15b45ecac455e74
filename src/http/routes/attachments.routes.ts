import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { AttachmentsRequest } from '../../schemas/attachment.js';
import { addAttachments } from '../../services/assets/attachment.service.js';
import { principalOf } from '../plugins/auth.js';
import { created } from '../reply.js';

/** Attachments added to existing assets (DECISIONS section 6). */
export const attachmentRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post('/attachments', { schema: { tags: ['assets'], body: AttachmentsRequest } }, async (req, reply) =>
    created(reply, await addAttachments(ctx, principalOf(req), req.body)),
  );
};
