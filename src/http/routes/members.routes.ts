import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import * as members from '../../services/identity/member.service.js';
import { getProject } from '../../services/projects/project.service.js';
import {
  AddUsersRequest,
  AssignMembersRequest,
  CreateInvitesRequest,
  CreateInvitesResponse,
  DeleteInvitesRequest,
  OrgIdParams,
  OrgSettingsRequest,
  OrgSettingsResponse,
  RemoveUsersRequest,
} from '../../schemas/member.js';
import { getOrgSettings, updateOrgSettings } from '../../services/identity/organization-settings.service.js';
import { invalidField } from '../../errors.js';
import { linkBase } from '../link-base.js';
import { principalOf } from '../plugins/auth.js';
import { created, ok } from '../reply.js';

const tags = ['members'];
const ProjectIdParams = Type.Object({ projectId: Type.String({ maxLength: 64 }) });

export const memberRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/organization/:orgId/users', { schema: { tags, params: OrgIdParams } }, async (req) =>
    ok(await members.listOrgUsers(ctx, principalOf(req), req.params.orgId)),
  );
  app.post(
    '/organization/:orgId/users',
    { schema: { tags, params: OrgIdParams, body: AddUsersRequest } },
    async (req, reply) =>
      created(reply, await members.addOrgUsers(ctx, principalOf(req), req.params.orgId, req.body.users)),
  );
  app.delete(
    '/organization/:orgId/users',
    { schema: { tags, params: OrgIdParams, body: RemoveUsersRequest } },
    async (req) => ok(await members.removeOrgUsers(ctx, principalOf(req), req.params.orgId, req.body.users)),
  );
  app.get(
    '/organization/:orgId/settings',
    {
      schema: {
        tags,
        operationId: 'getOrganizationSettings',
        summary: "The organization's sign-in settings (an extension)",
        description: 'Organization owners and admins only; other organizations answer 404.',
        params: OrgIdParams,
        response: { 200: OrgSettingsResponse },
      },
    },
    async (req) => ok(await getOrgSettings(ctx, principalOf(req), req.params.orgId)),
  );
  app.post(
    '/organization/:orgId/settings',
    {
      schema: {
        tags,
        operationId: 'updateOrganizationSettings',
        summary: "Change the organization's sign-in settings (an extension)",
        description:
          'passwordSignIn false: members sign in through single sign-on or with an API key only; password links and resets are refused. ' +
          'Organization owners and admins only; other organizations answer 404. A change appends one audit record.',
        params: OrgIdParams,
        body: OrgSettingsRequest,
        response: { 200: OrgSettingsResponse },
      },
    },
    async (req) => ok(await updateOrgSettings(ctx, principalOf(req), req.params.orgId, req.body)),
  );
  app.get('/organization/:orgId/invites', { schema: { tags, params: OrgIdParams } }, async (req) =>
    ok(await members.listInvites(ctx, principalOf(req), req.params.orgId)),
  );
  app.post(
    '/organization/:orgId/invites',
    { schema: { tags, params: OrgIdParams, body: CreateInvitesRequest, response: { 201: CreateInvitesResponse } } },
    async (req, reply) =>
      created(
        reply,
        await members.createInvites(ctx, principalOf(req), req.params.orgId, req.body, linkBase(ctx, req)),
      ),
  );
  app.delete(
    '/organization/:orgId/invites',
    { schema: { tags, params: OrgIdParams, body: DeleteInvitesRequest } },
    async (req) => {
      const emails = req.body.invites ?? req.body.to;
      if (!emails) throw invalidField('invites', 'must list the e-mails whose invites to delete');
      return ok(await members.deleteInvites(ctx, principalOf(req), req.params.orgId, emails));
    },
  );
  app.post(
    '/project/:projectId/assigned',
    { schema: { tags, params: ProjectIdParams, body: AssignMembersRequest } },
    async (req) => {
      const p = principalOf(req);
      await members.assignProjectMembers(ctx, p, req.params.projectId, req.body);
      return ok({ project: await getProject(ctx, p, req.params.projectId) });
    },
  );
};
