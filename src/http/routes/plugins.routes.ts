import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createUndiciSender } from '../../adapters/webhook/undici-sender.js';
import type { AppContext } from '../../context.js';
import { AssistRequest } from '../../schemas/assist.js';
import { TaskIdParams } from '../../schemas/task.js';
import { assist } from '../../services/plugins/assist.service.js';
import { PctValidationRequest } from '../../schemas/pct-validation.js';
import { validatePct } from '../../services/plugins/pct-validation.service.js';
import { ProjectIdParams } from '../../schemas/asset.js';
import {
  ListPluginsQuery,
  PluginCreateRequest,
  PluginIdParams,
  PluginLogQuery,
  PluginLogRequest,
  PluginResponseRequest,
  RerunPluginRequest,
} from '../../schemas/plugin.js';
import * as plugins from '../../services/plugins/plugin.service.js';
import * as sessions from '../../services/plugins/plugin-session.service.js';
import { principalOf } from '../plugins/auth.js';
import { created, ok } from '../reply.js';

/** Plugins of the organization, the callbacks a plugin answers through, the re-run, and the calls the editor makes through the server (Assist, a pct project's external validation). */
export const pluginRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['plugins'];
  app.post('/plugins', { schema: { tags, body: PluginCreateRequest } }, async (req, reply) =>
    created(reply, { plugin: await plugins.createPlugin(ctx, principalOf(req), req.body) }),
  );
  app.get('/plugins', { schema: { tags, querystring: ListPluginsQuery } }, async (req) =>
    ok(await plugins.listPlugins(ctx, principalOf(req), req.query)),
  );
  app.delete('/plugins/:pluginId', { schema: { tags, params: PluginIdParams } }, async (req) =>
    ok(await plugins.deletePlugin(ctx, principalOf(req), req.params.pluginId)),
  );

  app.post('/pluginResponse', { schema: { tags, body: PluginResponseRequest } }, async (req) =>
    ok(await sessions.pluginResponse(ctx, principalOf(req), req.body)),
  );
  app.post('/pluginLog', { schema: { tags, body: PluginLogRequest } }, async (req) =>
    ok(await sessions.pluginLog(ctx, principalOf(req), req.body)),
  );
  app.get('/pluginLog', { schema: { tags, querystring: PluginLogQuery } }, async (req) =>
    ok(await sessions.listPluginLogs(ctx, principalOf(req), req.query)),
  );

  app.post(
    '/project/:projectId/rerun-plugin',
    { schema: { tags, params: ProjectIdParams, body: RerunPluginRequest } },
    async (req) => ok(await sessions.rerunPlugin(ctx, principalOf(req), req.params.projectId, req.body ?? {})),
  );

  // Assist requests go out under the plugins' address rule, on a pool of their own.
  const sender = createUndiciSender({ allowPrivate: ctx.config.webhookAllowPrivate, connectionsPerOrigin: 8 });
  app.addHook('onClose', () => sender.close());
  app.post('/task/:taskId/assist', { schema: { tags, params: TaskIdParams, body: AssistRequest } }, async (req) =>
    ok(await assist(ctx, sender, principalOf(req), req.params.taskId, req.body)),
  );
  // A pct project's external validator is called the same way, on the same pool.
  app.post(
    '/task/:taskId/pctValidation',
    { schema: { tags: ['tasks'], params: TaskIdParams, body: PctValidationRequest } },
    async (req) => ok(await validatePct(ctx, sender, principalOf(req), req.params.taskId, req.body ?? {})),
  );
};
