import { Type } from 'typebox';
import { StringEnum } from './common.js';

/** Members and invites of an organization (DECISIONS section 2, [client] requests). */
export const OrgIdParams = Type.Object({ orgId: Type.String({ maxLength: 64 }) });

const Email = Type.String({ minLength: 3, maxLength: 320 });
const AssignableOrgRole = StringEnum(['admin', 'member'] as const);
export const ProjectRoleSchema = StringEnum(['Manager', 'Lead', 'Reviewer', 'Labeler'] as const);

export const AddUsersRequest = Type.Object({
  users: Type.Array(Type.Object({ email: Email, organizationRole: Type.Optional(AssignableOrgRole) }), {
    minItems: 1,
    maxItems: 1000,
  }),
});

export const RemoveUsersRequest = Type.Object({
  users: Type.Array(Email, { minItems: 1, maxItems: 1000 }),
});

export const CreateInvitesRequest = Type.Object({
  to: Type.Array(Email, { minItems: 1, maxItems: 1000 }),
  organizationRole: Type.Optional(AssignableOrgRole),
  projectAssignments: Type.Optional(
    Type.Array(Type.Object({ projectId: Type.String({ maxLength: 64 }), projectRole: ProjectRoleSchema }), {
      maxItems: 1000,
    }),
  ),
});

/** `invites` is what the [client] sends; `to` (the creation's name) stays accepted as an alias. */
export const DeleteInvitesRequest = Type.Object({
  invites: Type.Optional(Type.Array(Email, { minItems: 1, maxItems: 1000 })),
  to: Type.Optional(Type.Array(Email, { minItems: 1, maxItems: 1000 })),
});

export const AssignMembersRequest = Type.Object({
  assignees: Type.Array(Email, { minItems: 1, maxItems: 1000 }),
  role: ProjectRoleSchema,
});
