import { Type } from 'typebox';
import { StringEnum } from './common.js';
import { Success } from './envelope.js';

/** Console sign-in: sessions, and the one-time links that set a password. */
export const SignInRequest = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  },
  { description: 'Either email and password, or apiKey (pasted once; the session then stands for its user).' },
);

const OrgRole = StringEnum(['owner', 'admin', 'member'] as const);

export const SessionView = Type.Object({
  user: Type.Object({ _id: Type.String(), email: Type.String(), name: Type.String() }),
  organization: Type.Object({ _id: Type.String(), name: Type.String(), plan: Type.String() }),
  organizationRole: OrgRole,
  projectRoles: Type.Array(Type.Object({ projectId: Type.String(), role: Type.String() }), {
    description: "The caller's project roles; owners and admins act as Manager on every project.",
  }),
  via: StringEnum(['session', 'apikey'] as const, { description: 'what authenticated this request' }),
  csrfToken: Type.Optional(
    Type.String({ description: 'Send it in the x-csrf-token header on every cookie-authenticated write.' }),
  ),
  expiresAt: Type.Optional(Type.String({ description: 'When the session ends unless it is used before.' })),
});

export const SessionResponse = Success(SessionView);

/** GET /session/state: whether the caller is signed in, answered 200 either way (the console's first question). */
export const SessionStateResponse = Success(
  Type.Object(
    { signedIn: Type.Boolean(), session: Type.Optional(SessionView) },
    { description: 'session: who is signed in, as GET /session answers it; absent when nobody is' },
  ),
);
export const SignOutResponse = Success(
  Type.Object({
    signedOut: Type.Boolean(),
    endSessionUrl: Type.Optional(
      Type.String({
        description:
          "Signed in through an OpenID Connect provider that offers end-session: open this address to end the provider's session too",
      }),
    ),
  }),
);

/** GET /session/providers: what the sign-in page offers. */
export const SignInOptionsResponse = Success(
  Type.Object({
    providers: Type.Array(
      Type.Object({
        id: Type.String({ description: 'sign in at GET /v2/session/oidc/{id}/start?next=<console path>' }),
        name: Type.String({ description: 'the button says "Sign in with <name>"' }),
      }),
      { description: 'the OpenID Connect providers configured, in order' },
    ),
    passwordSignIn: Type.Boolean({
      description:
        'false: e-mail and password are refused for everyone (the server or every organization turned them off; API keys still work)',
    }),
  }),
);

export const OidcProviderParams = Type.Object({ provider: Type.String({ minLength: 1, maxLength: 40 }) });
export const OidcStartQuery = Type.Object({
  next: Type.Optional(Type.String({ maxLength: 2000, description: 'the console path to open after sign-in' })),
});
export const OidcCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 1024 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: true },
);

export const LinkTokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) });

export const PasswordLinkView = Success(
  Type.Object({
    purpose: StringEnum(['owner', 'reset', 'invite'] as const),
    email: Type.String(),
    organization: Type.Object({ _id: Type.String(), name: Type.String() }),
    organizationRole: OrgRole,
    projects: Type.Optional(
      Type.Array(Type.Object({ _id: Type.String(), name: Type.String(), role: Type.String() }), {
        description: 'invites only: the projects the invite gives a role on, with that role',
      }),
    ),
    expiresAt: Type.String(),
  }),
);

export const UsePasswordLinkRequest = Type.Object({
  password: Type.String({ maxLength: 1024, description: 'at least 10 characters' }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'display name (invites)' })),
});

/** POST /session/api-key: the caller's new key, shown this once; the old key stops working. */
export const NewApiKeyResponse = Success(
  Type.Object({
    apiKey: Type.String({ description: 'the new key: shown this once (only its hash is stored)' }),
    prefix: Type.String({ description: 'its first 8 characters, to tell keys apart' }),
  }),
);
