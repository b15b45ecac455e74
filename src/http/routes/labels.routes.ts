import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ImportLabelsRequest } from '../../schemas/prelabel.js';
import { importLabels } from '../../services/assets/prelabel.service.js';
import { principalOf } from '../plugins/auth.js';
import { ok } from '../reply.js';
import { linkBase } from '../link-base.js';

/** Pre-labels written onto tasks still in the Start stage (DECISIONS section 6). */
export const labelRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post('/import/labels', { schema: { tags: ['tasks'], body: ImportLabelsRequest } }, async (req) =>
    ok(await importLabels(ctx, principalOf(req), req.body, [linkBase(ctx, req), ctx.config.publicUrl])),
  );
};
