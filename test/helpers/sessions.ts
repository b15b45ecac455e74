import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from './app.js';

/** The password ANNOTARY_BOOTSTRAP_PASSWORD gives the owner in tests that sign in. */
export const OWNER_PASSWORD = 'correct horse battery staple';

export interface SignedIn {
  cookie: string;
  csrf: string;
  res: LightMyRequestResponse;
}

/** The `annotary_session=<token>` pair a response set. */
export function sessionCookieOf(res: LightMyRequestResponse): string {
  const c = res.cookies.find((x) => x.name === 'annotary_session');
  if (!c) throw new Error(`no session cookie in the answer (${res.statusCode} ${res.body})`);
  return `annotary_session=${c.value}`;
}

/** Signs in through POST /v2/session and answers the cookie and CSRF token a browser would keep. */
export async function signInWith(
  t: TestApp,
  body: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<SignedIn> {
  const res = await t.call('POST', '/v2/session', { key: null, body, headers });
  expect(res.statusCode, res.body).toBe(200);
  return { cookie: sessionCookieOf(res), csrf: res.json().data.csrfToken as string, res };
}

/** A request the way the console sends it: the cookie, and on writes the CSRF header. */
export function asBrowser(
  t: TestApp,
  s: { cookie: string; csrf?: string },
  method: string,
  url: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { cookie: s.cookie, ...opts.headers };
  if (s.csrf && method !== 'GET') headers['x-csrf-token'] = s.csrf;
  return t.call(method, url, { key: null, body: opts.body, headers });
}
