import { api, setCsrfToken, unwrap } from './client';

/**
 * Ends the session on the server (DELETE /v2/session); the caller clears the cache and leaves,
 * to the provider's end-session address when one is answered (signed in through single sign-on).
 */
export async function signOut(): Promise<{ endSessionUrl?: string }> {
  const answer = await unwrap<{ signedOut: boolean; endSessionUrl?: string }>(
    'DELETE',
    '/v2/session',
    api.DELETE('/v2/session'),
  ).catch(() => undefined);
  setCsrfToken(undefined);
  return answer?.endSessionUrl ? { endSessionUrl: answer.endSessionUrl } : {};
}
