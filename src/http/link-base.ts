import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';

/*
 * The address the links of an answer start with (invite and password links, export downloads,
 * signed file links). ANNOTARY_PUBLIC_URL wins when it is set. Without it, the request's own
 * address: its Host header, and X-Forwarded-Host / X-Forwarded-Proto only when
 * ANNOTARY_TRUST_PROXY trusts the proxy that sent the request (Fastify's request.host and
 * request.protocol apply that rule). So a console opened on http://10.0.0.5:8080 gets links a
 * teammate can open, and one opened on 127.0.0.1 gets links that carry its session cookie.
 *
 * A Host header is the caller's to choose, so a link built from it goes back to that same caller
 * only: it is never sent to someone else (the server sends no e-mail) and never made outside a
 * request; links that are kept (asset data, instructions) can be any URL their writer chooses
 * anyway. Background jobs use the base of the request that queued them (kept in the job).
 */

/** host[:port]: a DNS name, an IPv4 address or a bracketed IPv6 address; nothing else. */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** `http(s)://host[:port]` of the request, or undefined when its Host is missing or malformed. */
export function requestOrigin(req: FastifyRequest): string | undefined {
  const host = req.host;
  if (host.length > 300 || !HOST.test(host)) return undefined;
  const protocol = req.protocol === 'https' ? 'https' : 'http';
  try {
    return new URL(`${protocol}://${host}`).origin;
  } catch {
    return undefined;
  }
}

/** The base of the links answered to `req`, without a trailing slash. */
export function linkBase(ctx: AppContext, req: FastifyRequest): string {
  if (ctx.config.publicUrlConfigured) return ctx.config.publicUrl;
  return requestOrigin(req) ?? ctx.config.publicUrl;
}
