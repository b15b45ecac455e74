import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { AuditPageResponse, AuditQuerySchema } from '../../schemas/audit.js';
import { OrgIdParams } from '../../schemas/member.js';
import { auditFilter, exportAudit, listAudit } from '../../services/audit/audit-query.service.js';
import { principalOf } from '../plugins/auth.js';
import { ok } from '../reply.js';

const tags = ['audit'];
const AUDIT_READERS = 'Organization owners and admins only; other organizations answer 404.';

/** The audit log: read-only (records are appended by the changes themselves, never edited). */
export const auditRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/organization/:orgId/audit',
    {
      schema: {
        tags,
        operationId: 'listAuditRecords',
        summary: 'List the audit records of your organization, newest first',
        description: `Filters by time, person, operation and target; pages with nextCursor. ${AUDIT_READERS}`,
        params: OrgIdParams,
        querystring: AuditQuerySchema,
        response: { 200: AuditPageResponse },
      },
    },
    async (req) => ok(await listAudit(ctx, principalOf(req), req.params.orgId, req.query)),
  );
  app.get(
    '/organization/:orgId/audit/export',
    {
      // Its summary and answer are documented in openapi/operations-admin.ts (a raw answer).
      schema: { tags, params: OrgIdParams, querystring: Type.Omit(AuditQuerySchema, ['cursor', 'limit']) },
    },
    async (req, reply) => {
      const p = principalOf(req);
      // Refuse before the first byte: a refusal must be an error envelope, not a broken stream.
      auditFilter(p, req.params.orgId, req.query);
      void reply.header('content-type', 'application/x-ndjson; charset=utf-8');
      void reply.header('content-disposition', 'attachment; filename="audit.ndjson"');
      return reply.send(Readable.from(exportAudit(ctx, p, req.params.orgId, req.query)));
    },
  );
};
