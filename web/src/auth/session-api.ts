import { csrfHeaders } from './csrf';

/*
 * The sign-in endpoints, with a minimal fetch until the typed client (src/client, branch
 * client-cli) is merged: then these functions call it instead, and the types below come from
 * its generated schema. Nothing else in the console calls these endpoints directly.
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

interface Envelope<T> {
  status?: string;
  data?: T;
  message?: string;
  errors?: { field: string; message: string }[];
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...csrfHeaders(method) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json().catch(() => ({}))) as Envelope<T>;
  if (!res.ok || json.data === undefined) {
    const fields = Object.fromEntries((json.errors ?? []).map((e) => [e.field, e.message]));
    throw new ApiError(res.status, json.message ?? `the server answered ${res.status}`, fields);
  }
  return json.data;
}

/** Who is signed in; null when nobody is (401). */
export async function fetchSession(): Promise<SessionView | null> {
  try {
    return await call<SessionView>('GET', '/v2/session');
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

export const signIn = (body: SignInBody) => call<SessionView>('POST', '/v2/session', body);
export const signOut = () => call<{ signedOut: boolean }>('DELETE', '/v2/session');
export const describePasswordLink = (token: string) =>
  call<PasswordLinkView>('GET', `/v2/password-links/${encodeURIComponent(token)}`);
export const submitPasswordLink = (token: string, body: { password: string; name?: string }) =>
  call<SessionView>('POST', `/v2/password-links/${encodeURIComponent(token)}`, body);

export interface OrgPerson {
  _id: string;
  email: string;
  name: string;
  organizationRole: string;
}

/** The account page's list of the organization's people (owners and admins only: 403 otherwise). */
export const listOrganizationPeople = (orgId: string) =>
  call<{ users: OrgPerson[]; total: number }>('GET', `/v2/organization/${encodeURIComponent(orgId)}/users`);
