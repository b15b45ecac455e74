import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { PaginationQuery, parseQueryBoolean, QUERY_BOOLEAN_PATTERN, SortQuery } from '../../schemas/common.js';
import { ProjectCreateRequest, ProjectUpdateRequest } from '../../schemas/project.js';
import * as projects from '../../services/projects/project.service.js';
import { principalOf } from '../plugins/auth.js';
import { created, ok } from '../reply.js';

const tags = ['projects'];
const ProjectIdParams = Type.Object({ projectId: Type.String({ maxLength: 64 }) });
const ListQuery = Type.Intersect([
  PaginationQuery(1000),
  Type.Object({
    sort: Type.Optional(SortQuery(['createdAt', 'updatedAt', 'name'] as const, '-createdAt')),
    name: Type.Optional(Type.String({ maxLength: 200, description: 'only projects whose name contains this text' })),
    archived: Type.Optional(
      Type.String({
        pattern: QUERY_BOOLEAN_PATTERN,
        description: 'an extension: true lists only archived projects, false only active ones; omitted, both',
      }),
    ),
    counts: Type.Optional(
      Type.String({
        pattern: QUERY_BOOLEAN_PATTERN,
        description: 'an extension: each item also carries the caller’s role and the live task counts (progress)',
      }),
    ),
  }),
]);

export const projectRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/listProjects', { schema: { tags, querystring: ListQuery } }, async (req) => {
    const { page = 1, limit = 10, sort = '-createdAt', name } = req.query;
    const archived = req.query.archived === undefined ? undefined : parseQueryBoolean(req.query.archived);
    const counts = parseQueryBoolean(req.query.counts);
    return ok(await projects.listProjects(ctx, principalOf(req), { page, limit, sort, name, archived, counts }));
  });

  app.get('/project/:projectId', { schema: { tags, params: ProjectIdParams } }, async (req) =>
    ok({ project: await projects.getProject(ctx, principalOf(req), req.params.projectId) }),
  );

  app.post('/project', { schema: { tags, body: ProjectCreateRequest } }, async (req, reply) =>
    created(reply, { project: await projects.createProject(ctx, principalOf(req), req.body) }),
  );

  app.post(
    '/project/:projectId',
    { schema: { tags, params: ProjectIdParams, body: ProjectUpdateRequest } },
    async (req) => ok({ project: await projects.updateProject(ctx, principalOf(req), req.params.projectId, req.body) }),
  );

  app.delete('/project/:projectId', { schema: { tags, params: ProjectIdParams } }, async (req) =>
    ok(await projects.deleteProject(ctx, principalOf(req), req.params.projectId)),
  );
};
