import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { ProjectIdParams } from '../../schemas/asset.js';
import { parseQueryBoolean } from '../../schemas/common.js';
import {
  AnnotateQuery,
  AnnotateRequest,
  AssignRequest,
  ForwardRequest,
  HistoryIdParams,
  MaskQuery,
  ListTasksQuery,
  NextQuery,
  PositionQuery,
  ReleaseRequest,
  RequeueRequest,
  ReviewRequest,
  TaskIdParams,
  UpdatePriorityRequest,
} from '../../schemas/task.js';
import * as hold from '../../services/tasks/hold.service.js';
import * as bulk from '../../services/tasks/bulk-move.service.js';
import * as queue from '../../services/tasks/queue.service.js';
import * as tasks from '../../services/tasks/task.service.js';
import * as answering from '../../services/tasks/task-answer.service.js';
import * as handout from '../../services/tasks/task-handout.service.js';
import { principalOf } from '../plugins/auth.js';
import { ok } from '../reply.js';
import { invalidField } from '../../errors.js';
import { MAX_LAYER_BYTES } from '../../services/files/layers/brush-layer.js';
import { MAX_VOLUME_LAYER_BYTES } from '../../services/files/layers/medical-layer.js';
import { objectMask } from '../../services/tasks/object-mask.js';
import { linkBase } from '../link-base.js';

export const taskRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['tasks'];
  app.get('/task/:taskId', { schema: { tags, params: TaskIdParams } }, async (req) =>
    ok({ task: await tasks.getTask(ctx, principalOf(req), req.params.taskId) }),
  );
  app.get(
    '/project/:projectId/tasks',
    { schema: { tags, params: ProjectIdParams, querystring: ListTasksQuery } },
    async (req) => {
      const q = req.query;
      return ok(
        await tasks.listTasks(ctx, principalOf(req), req.params.projectId, {
          page: q.page ?? 1,
          limit: q.limit ?? 10,
          status: q['status[eq]'],
          batches: q.batches,
          stage: q.stage,
          filter: q.filter,
          sort: q.sort,
          fields: q.fields,
          includeAnswer: parseQueryBoolean(q.includeAnswer),
        }),
      );
    },
  );
  app.get('/task/:taskId/history', { schema: { tags, params: TaskIdParams } }, async (req) =>
    ok(await tasks.taskHistory(ctx, principalOf(req), req.params.taskId)),
  );
  app.get('/taskHistory/:id', { schema: { tags, params: HistoryIdParams } }, async (req) =>
    ok(await tasks.historyById(ctx, principalOf(req), req.params.id)),
  );

  // The contract names GET with a body; clients also POST.
  for (const method of ['POST', 'GET'] as const) {
    app.route({
      method,
      url: '/annotate/:taskId',
      exposeHeadRoute: false,
      schema: { tags, params: TaskIdParams, querystring: AnnotateQuery, body: AnnotateRequest },
      handler: async (req) => {
        const opts = {
          nextStage: parseQueryBoolean(req.query.nextStage),
          isPlugin: parseQueryBoolean(req.query.isPlugin),
        };
        const linkBases = [linkBase(ctx, req), ctx.config.publicUrl];
        const task = await answering.annotate(ctx, principalOf(req), req.params.taskId, req.body ?? {}, {
          ...opts,
          linkBases,
        });
        return ok({ task });
      },
    });
  }
  // The brush layer's PNG, sent as the raw body.
  app.addContentTypeParser('image/png', { parseAs: 'buffer', bodyLimit: MAX_LAYER_BYTES }, (_req, body, done) =>
    done(null, body),
  );
  app.post(
    '/task/:taskId/brush',
    {
      schema: {
        tags,
        description:
          "The task's brush layer as the raw body (Content-Type image/png): a PNG of the image's size. Answers `{brushDataUrl}`, a link to save with POST /annotate/{taskId}.",
        consumes: ['image/png'],
        params: TaskIdParams,
      },
    },
    async (req) => {
      if (!Buffer.isBuffer(req.body)) throw invalidField('body', 'must be the PNG bytes, sent as image/png');
      return ok(
        await answering.uploadLayer(
          ctx,
          principalOf(req),
          req.params.taskId,
          req.body,
          linkBase(ctx, req),
          'brushDataUrl',
        ),
      );
    },
  );
  // The voxel layer's `.seg.nrrd`, sent as the raw body.
  app.addContentTypeParser(
    'application/octet-stream',
    { parseAs: 'buffer', bodyLimit: MAX_VOLUME_LAYER_BYTES },
    (_req, body, done) => done(null, body),
  );
  app.post(
    '/task/:taskId/medical-brush',
    {
      schema: {
        tags,
        description:
          "The task's voxel layer as the raw body (Content-Type application/octet-stream): a `.seg.nrrd` of the volume's size, each voxel its class number. Answers `{medicalBrushDataUrl}`, a link to save with POST /annotate/{taskId}.",
        consumes: ['application/octet-stream'],
        params: TaskIdParams,
      },
    },
    async (req) => {
      if (!Buffer.isBuffer(req.body)) {
        throw invalidField('body', 'must be the .seg.nrrd bytes, sent as application/octet-stream');
      }
      return ok(
        await answering.uploadLayer(
          ctx,
          principalOf(req),
          req.params.taskId,
          req.body,
          linkBase(ctx, req),
          'medicalBrushDataUrl',
        ),
      );
    },
  );
  // An API key, or the signed link of an export (`expires` and `signature`): checked inside.
  app.get('/mask', { config: { public: true }, schema: { tags, querystring: MaskQuery } }, async (req, reply) => {
    const png = await objectMask(ctx, req.principal, req.query);
    return reply.type('image/png').header('cache-control', 'private, no-store').send(png);
  });
  app.post('/review/:taskId', { schema: { tags, params: TaskIdParams, body: ReviewRequest } }, async (req) =>
    ok({ task: await answering.review(ctx, principalOf(req), req.params.taskId, req.body.reviewStatus) }),
  );
  app.post('/task/:taskId/skip', { schema: { tags, params: TaskIdParams } }, async (req) =>
    ok({ task: await answering.skip(ctx, principalOf(req), req.params.taskId) }),
  );
  app.post(
    '/task/:taskId/release',
    {
      schema: { tags, params: TaskIdParams, body: ReleaseRequest },
      // The body is optional as a whole: no body releases the task whatever changed.
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
    },
    async (req) => ok({ task: await hold.release(ctx, principalOf(req), req.params.taskId, req.body) }),
  );
  app.post('/task/:taskId/take', { schema: { tags, params: TaskIdParams } }, async (req) =>
    ok({ task: await hold.take(ctx, principalOf(req), req.params.taskId) }),
  );
  app.get(
    '/task/:taskId/position',
    { schema: { tags, params: TaskIdParams, querystring: PositionQuery } },
    async (req) => ok(await hold.position(ctx, principalOf(req), req.params.taskId, req.query.since)),
  );
  app.get(
    '/project/:projectId/next',
    { schema: { tags, params: ProjectIdParams, querystring: NextQuery } },
    async (req) => ok(await handout.nextTask(ctx, principalOf(req), req.params.projectId, req.query.stageId)),
  );
  app.get('/project/:projectId/queue', { schema: { tags, params: ProjectIdParams } }, async (req) =>
    ok({ stages: await queue.workQueue(ctx, principalOf(req), req.params.projectId) }),
  );
  app.post('/task/assign', { schema: { tags, body: AssignRequest } }, async (req) =>
    ok(await handout.assignTasks(ctx, principalOf(req), req.body)),
  );
  app.post(
    '/project/:projectId/forward',
    { schema: { tags, params: ProjectIdParams, body: ForwardRequest } },
    async (req) => ok(await bulk.forwardTasks(ctx, principalOf(req), req.params.projectId, req.body)),
  );
  app.post(
    '/project/:projectId/requeueTasks',
    { schema: { tags, params: ProjectIdParams, body: RequeueRequest } },
    async (req) => ok(await bulk.requeueTasks(ctx, principalOf(req), req.params.projectId, req.body)),
  );
  app.post(
    '/project/:projectId/updatePriority',
    { schema: { tags, params: ProjectIdParams, body: UpdatePriorityRequest } },
    async (req) => ok(await bulk.updatePriority(ctx, principalOf(req), req.params.projectId, req.body)),
  );
};
