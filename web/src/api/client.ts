import { AnnotaryError, type FieldError } from '../../../src/client/errors';
import { Transport } from '../../../src/client/transport';

/**
 * The console's one door to the API: the typed client (src/client) in cookie mode. The session
 * cookie goes with every request; writes carry the session's CSRF token, which the session
 * query (session.ts) keeps here.
 */

let csrfToken: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** The session's CSRF token: a write to our own origin outside the client (an upload's PUT) sends it. */
export function currentCsrfToken(): string | undefined {
  return csrfToken;
}

export const client = new Transport({
  baseUrl: `${window.location.origin}/v2`,
  cookieMode: { csrfToken: () => csrfToken },
  // react-query asks again on its own; one quick retry here covers a dropped connection.
  retry: { maxAttempts: 2, maxElapsedMs: 5000 },
});

export const api = client.api;
/** The envelope's `data` of a typed call, or an AnnotaryError. */
export const unwrap = <T>(method: string, path: string, call: Parameters<Transport['unwrap']>[2]) =>
  client.unwrap<T>(method, path, call);

export { AnnotaryError as ApiError, type FieldError };
