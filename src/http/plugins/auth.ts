import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../services/identity/access.js';
import { authenticate } from '../../services/identity/identity.service.js';

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

/** Resolves the apikey header to its caller; never refuses (the rate limiter needs to run first). */
export function identifyHook(ctx: AppContext) {
  return async function identify(req: FastifyRequest): Promise<void> {
    const header = req.headers.apikey;
    const key = Array.isArray(header) ? header[0] : header;
    req.principal = key ? await authenticate(ctx.store.db, key.trim()) : undefined;
  };
}

/** Refuses a route that needs a key when the caller has none; unknown routes answer 404 anyway. */
export async function requireKeyHook(req: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (req.routeOptions.url === undefined || req.routeOptions.config.public) return;
  if (!req.principal) {
    const sent = req.headers.apikey !== undefined;
    throw new AppError('UNAUTHENTICATED', sent ? 'invalid API key' : 'missing API key: send it in the apikey header');
  }
}
