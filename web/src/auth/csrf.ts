/**
 * The session's CSRF token, for every write the console sends with its cookie.
 *
 * The server refuses a cookie-authenticated POST/PUT/PATCH/DELETE without the `x-csrf-token`
 * header holding the token that POST or GET /v2/session answered. The token is not in a cookie
 * (the session cookie is httpOnly): useSession() keeps this module up to date, and every request
 * helper adds the header through csrfHeaders() or the openapi-fetch middleware below.
 */
export const CSRF_HEADER = 'x-csrf-token';

let current: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  current = token;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The header a request of `method` must carry (none for reads or before sign-in). */
export function csrfHeaders(method: string): Record<string, string> {
  return current && !SAFE.has(method.toUpperCase()) ? { [CSRF_HEADER]: current } : {};
}

/**
 * openapi-fetch middleware: `client.use(csrfMiddleware)` on the typed client makes every write
 * carry the token. (Structural type, so this module does not depend on the client's package.)
 */
export const csrfMiddleware = {
  onRequest({ request }: { request: Request }): Request {
    for (const [name, value] of Object.entries(csrfHeaders(request.method))) request.headers.set(name, value);
    return request;
  },
};
