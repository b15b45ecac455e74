import { Type } from 'typebox';
import { StringEnum } from './common.js';
import { Success } from './envelope.js';

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
export const CreateInvitesResponse = Success(
  Type.Object({
    invited: Type.Integer(),
    links: Type.Array(
      Type.Object({
        email: Type.String(),
        url: Type.String({ description: '`<publicUrl>/invite/<token>`: one-time; the invitee sets a password there' }),
        expiresAt: Type.String({ description: 'after ANNOTARY_INVITE_HOURS (default 7 days)' }),
      }),
      {
        description:
          'One accept link per invited person who has no account yet. Shown once (only a hash is stored): ' +
          'send it to the invitee. Inviting again makes a new link and voids the old one.',
      },
    ),
  }),
);

export const DeleteInvitesRequest = Type.Object({
  invites: Type.Optional(Type.Array(Email, { minItems: 1, maxItems: 1000 })),
  to: Type.Optional(Type.Array(Email, { minItems: 1, maxItems: 1000 })),
});

export const AssignMembersRequest = Type.Object({
  assignees: Type.Array(Email, { minItems: 1, maxItems: 1000 }),
  role: ProjectRoleSchema,
});

/** The organization's sign-in settings (an extension). */
export const OrgSettings = Type.Object({
  passwordSignIn: Type.Boolean({
    description: "whether the organization's members may sign in with e-mail and password (API keys always work)",
  }),
  serverPasswordSignIn: Type.Boolean({
    description: 'false: ANNOTARY_PASSWORD_SIGNIN turns password sign-in off for the whole server',
  }),
  singleSignOn: Type.Array(Type.String(), {
    description: 'the names of the single sign-on providers that sign people in to this organization',
  }),
});

export const OrgSettingsRequest = Type.Object(
  {
    passwordSignIn: Type.Optional(
      Type.Boolean({
        description:
          'false refuses e-mail and password sign-in and password links for the members (single sign-on and API keys stay); needs a single sign-on provider for the organization',
      }),
    ),
  },
  { additionalProperties: false },
);

export const OrgSettingsResponse = Success(Type.Object({ settings: OrgSettings }));
