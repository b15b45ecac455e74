import { api, ApiError as ClientError, unwrap } from '../api/client';

/*
 * The sign-in endpoints through the console's typed client (web/src/api/client.ts, cookie
 * mode: the session cookie goes with every request and writes carry the CSRF token). Errors
 * become ApiError with the field errors keyed by field, for the forms.
 */

export interface SessionView {
  user: { _id: string; email: string; name: string };
  organization: { _id: string; name: string; plan: string };
  organizationRole: 'owner' | 'admin' | 'member';
  projectRoles: { projectId: string; role: string }[];
  via: 'session' | 'apikey';
  csrfToken?: string;
  expiresAt?: string;
}

export interface PasswordLinkView {
  purpose: 'owner' | 'reset' | 'invite';
  email: string;
  organization: { _id: string; name: string };
  organizationRole: 'owner' | 'admin' | 'member';
  /** Invites only: the projects the invite gives a role on. */
  projects?: { _id: string; name: string; role: string }[];
  expiresAt: string;
}

export type SignInBody = { email: string; password: string } | { apiKey: string };

/** The API's error envelope as an Error: `fields` maps a named field to its message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

async function call<T>(method: string, path: string, request: Parameters<typeof unwrap>[2]): Promise<T> {
  try {
    return await unwrap<T>(method, path, request);
  } catch (err) {
    if (!(err instanceof ClientError)) throw err;
    const fields = Object.fromEntries(err.fieldErrors.map((e) => [e.field, e.message]));
    throw new ApiError(err.status, err.status === 0 ? 'the server could not be reached' : err.message, fields);
  }
}

/**
 * Who is signed in; null when nobody is. Asked of GET /v2/session/state, which answers a
 * signed-out browser 200 `{signedIn: false}`: GET /v2/session answers it 401, which the browser
 * logs as an error on every visit to the sign-in and invite pages.
 */
export async function fetchSession(): Promise<SessionView | null> {
  const state = await call<{ signedIn: boolean; session?: SessionView }>(
    'GET',
    '/v2/session/state',
    api.GET('/v2/session/state'),
  );
  return state.signedIn && state.session ? state.session : null;
}

export interface SignInOptions {
  providers: { id: string; name: string }[];
  passwordSignIn: boolean;
}

/** How people may sign in here: the single sign-on providers (a button each) and whether passwords are accepted. */
export const fetchSignInOptions = () =>
  call<SignInOptions>('GET', '/v2/session/providers', api.GET('/v2/session/providers'));

/** The server's first leg of a single sign-on: the browser goes there, then to the provider. */
export function providerSignInHref(providerId: string, next: string): string {
  return `/v2/session/oidc/${encodeURIComponent(providerId)}/start?next=${encodeURIComponent(next)}`;
}

export const signIn = (body: SignInBody) => call<SessionView>('POST', '/v2/session', api.POST('/v2/session', { body }));

export const describePasswordLink = (token: string) =>
  call<PasswordLinkView>(
    'GET',
    '/v2/password-links/{token}',
    api.GET('/v2/password-links/{token}', { params: { path: { token } } }),
  );

export const submitPasswordLink = (token: string, body: { password: string; name?: string }) =>
  call<SessionView>(
    'POST',
    '/v2/password-links/{token}',
    api.POST('/v2/password-links/{token}', { params: { path: { token } }, body }),
  );

export interface OrgPerson {
  _id: string;
  email: string;
  name: string;
  organizationRole: string;
}

/** The account page's list of the organization's people (owners and admins only: 403 otherwise). */
export const listOrganizationPeople = (orgId: string) =>
  call<{ users: OrgPerson[]; total: number }>(
    'GET',
    '/v2/organization/{orgId}/users',
    api.GET('/v2/organization/{orgId}/users', { params: { path: { orgId } } }),
  );
