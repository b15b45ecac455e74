import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import {
  CommentRequest,
  CreateIssueRequest,
  DeleteIssueQuery,
  IssueIdParams,
  ListIssuesQuery,
  UpdateIssueRequest,
} from '../../schemas/issue.js';
import * as issues from '../../services/issues/issue.service.js';
import { principalOf } from '../plugins/auth.js';
import { created, ok } from '../reply.js';

/** Issues on tasks (DECISIONS section 6). */
export const issueRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const tags = ['issues'];
  app.post('/issues', { schema: { tags, body: CreateIssueRequest } }, async (req, reply) =>
    created(reply, await issues.createIssue(ctx, principalOf(req), req.body)),
  );
  app.get('/issues', { schema: { tags, querystring: ListIssuesQuery } }, async (req) => {
    const { page = 1, limit = 10, sort = '-createdAt', ...filters } = req.query;
    return ok(await issues.listIssues(ctx, principalOf(req), { ...filters, page, limit, sort }));
  });
  app.post('/issues/:issueId', { schema: { tags, params: IssueIdParams, body: UpdateIssueRequest } }, async (req) =>
    ok(await issues.updateIssue(ctx, principalOf(req), req.params.issueId, req.body)),
  );
  app.post('/issues/:issueId/comment', { schema: { tags, params: IssueIdParams, body: CommentRequest } }, async (req) =>
    ok(await issues.commentIssue(ctx, principalOf(req), req.params.issueId, req.body.content)),
  );
  app.delete(
    '/issues/:issueId',
    { schema: { tags, params: IssueIdParams, querystring: DeleteIssueQuery } },
    async (req) => ok(await issues.deleteIssue(ctx, principalOf(req), req.params.issueId, req.query.project)),
  );
};
