import { api, setCsrfToken, unwrap } from './client';

// The session query lives with the sign-in pages (web/src/auth/useSession.ts): one query, one
// answer for "nobody is signed in" (null), one place that keeps the CSRF token.
export type { SessionView as SessionInfo } from '../auth/session-api';
export { SESSION_KEY as sessionKey, useSession as useSessionInfo } from '../auth/useSession';

export async function signOut(): Promise<void> {
  await unwrap('DELETE', '/v2/session', api.DELETE('/v2/session')).catch(() => undefined);
  setCsrfToken(undefined);
}
