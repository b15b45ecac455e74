import { timingSafeEqual } from 'node:crypto';
import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError, forbidden } from '../../errors.js';
import type { Principal } from '../../access.js';
import { authenticateCached } from '../../services/identity/identity.service.js';
import type { PrincipalCache } from '../../services/identity/principal-cache.js';
import { authFailureLimiter } from './rate-limit.js';
import { authenticateSession, CSRF_HEADER, SESSION_COOKIE } from '../../services/identity/session.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every route that needs a key. */
    principal: Principal | undefined;
  }
  interface FastifyContextConfig {
    /** The route needs no API key (health, docs, signed downloads). */
    public?: boolean;
    /** The route is not counted against the rate limit (health, signed file paths). */
    unlimited?: boolean;
  }
}

/** The caller of a route that required a key: the auth hook guarantees it is set. */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new AppError('UNAUTHENTICATED', 'missing or invalid API key');
  return req.principal;
}

function headerOf(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Resolves the caller: the apikey header (scripts) wins over the session cookie (the console).
 * An invalid key is counted against its address's and its prefix's budgets, and refused with
 * 429 once one is spent; otherwise a missing or invalid key is refused later, after the rate
 * limiter. A valid key is never refused here.
 */
export function identifyHook(ctx: AppContext, principals: PrincipalCache) {
  const failures = authFailureLimiter(ctx);
  return async function identify(req: FastifyRequest): Promise<void> {
    const key = headerOf(req, 'apikey');
    req.principal = undefined;
    if (key) {
      const trimmed = key.trim();
      const principal = await authenticateCached(ctx.store.db, principals, trimmed);
      if (!principal) return failures.failed(req, trimmed);
      req.principal = { ...principal, address: req.ip };
      return;
    }
    const cookie = req.cookies[SESSION_COOKIE];
    const principal = cookie ? await authenticateSession(ctx, cookie) : undefined;
    if (principal) req.principal = { ...principal, address: req.ip };
  };
}

/** Refuses a route that needs a key when the caller has none; unknown routes answer 404 anyway. */
export function requireKey(
  req: FastifyRequest,
  route: { url: string | undefined; config: FastifyContextConfig },
): void {
  if (route.url === undefined || route.config.public) return;
  if (!req.principal) {
    if (req.headers.apikey !== undefined) throw new AppError('UNAUTHENTICATED', 'invalid API key');
    if (req.cookies[SESSION_COOKIE]) throw new AppError('UNAUTHENTICATED', 'your session has ended: sign in again');
    throw new AppError('UNAUTHENTICATED', 'missing API key: send it in the apikey header');
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origins a same-origin request may name: the public URL's and the one it was sent to. */
function sameOrigin(ctx: AppContext, req: FastifyRequest, origin: string): boolean {
  if (origin === new URL(ctx.config.publicUrl).origin) return true;
  return origin === `${req.protocol}://${req.host}`;
}

/**
 * Cross-site request forgery: a browser sends the session cookie with any request to us, so a
 * cookie-authenticated write must carry the session's CSRF token in the x-csrf-token header
 * (another site cannot read it, nor set a custom header without our consent, which we never
 * give). Writes without an API key, sign-in included, are also refused when the browser says
 * they come from another site (Origin, Sec-Fetch-Site). API-key requests are unaffected.
 */
export function csrfHook(ctx: AppContext) {
  return function csrf(req: FastifyRequest): void {
    if (SAFE_METHODS.has(req.method) || req.headers.apikey !== undefined) return;
    const site = headerOf(req, 'sec-fetch-site');
    const origin = headerOf(req, 'origin');
    if (
      (site !== undefined && site !== 'same-origin' && site !== 'none') ||
      (origin && !sameOrigin(ctx, req, origin))
    ) {
      throw forbidden('cross-site request refused');
    }
    const session = req.principal?.session;
    if (!session) return;
    const sent = headerOf(req, CSRF_HEADER) ?? '';
    const expected = Buffer.from(session.csrfToken);
    const given = Buffer.from(sent);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw forbidden(`missing or wrong ${CSRF_HEADER} header: send the csrfToken of GET /v2/session`);
    }
  };
}
