import { api, setCsrfToken, unwrap } from './client';

/** Ends the session on the server (DELETE /v2/session); the caller clears the cache and leaves. */
export async function signOut(): Promise<void> {
  await unwrap('DELETE', '/v2/session', api.DELETE('/v2/session')).catch(() => undefined);
  setCsrfToken(undefined);
}
