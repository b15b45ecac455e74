import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { describeError } from '../../log-safe.js';
import type { Principal } from '../../services/identity/access.js';

export const RATE_WINDOW_MS = 60_000;

const PLAN_LIMITS: Record<string, number> = { standard: 100, professional: 500, enterprise: 1000 };

/** Requests per minute for the caller: its organization's plan, or standard for anonymous callers. */
export function limitFor(p: Principal | undefined): number {
  if (!p) return PLAN_LIMITS.standard ?? 100;
  if (p.plan === 'enterprise' && p.planLimit) return p.planLimit;
  return PLAN_LIMITS[p.plan] ?? PLAN_LIMITS.standard ?? 100;
}

/** Requests with an invalid API key one client address may send per minute. */
export const AUTH_FAILURES_PER_MINUTE = 20;

/**
 * Key guessing is limited per client address (req.ip: the socket's address unless
 * ANNOTARY_TRUST_PROXY names the proxy in front). `check` runs before the key lookup and refuses
 * an address that used its budget of invalid keys this minute (a valid key from it waits too:
 * the lookup is what the limit protects); `failed` counts one invalid key. The counters live in
 * the rate-limit store, so replicas sharing Redis share them.
 */
export function authFailureLimiter(ctx: AppContext) {
  const bucket = (req: FastifyRequest) => `authfail:${req.ip}`;
  return {
    async check(req: FastifyRequest): Promise<void> {
      const now = ctx.clock.now();
      let seen: { count: number; resetAt: number };
      try {
        seen = await ctx.rateLimits.peek(bucket(req), RATE_WINDOW_MS, now);
      } catch (err) {
        req.log.warn({ error: describeError(err) }, 'rate-limit store unavailable; key failures not checked');
        return;
      }
      if (seen.count < AUTH_FAILURES_PER_MINUTE) return;
      const retryAfter = Math.max(1, Math.ceil((seen.resetAt - now) / 1000));
      throw new AppError(
        'RATE_LIMITED',
        `too many requests with an invalid API key from this address (${AUTH_FAILURES_PER_MINUTE} per minute)`,
        undefined,
        { 'retry-after': String(retryAfter) },
      );
    },
    async failed(req: FastifyRequest): Promise<void> {
      await ctx.rateLimits.hit(bucket(req), RATE_WINDOW_MS, ctx.clock.now()).catch((err: unknown) => {
        req.log.warn({ error: describeError(err) }, 'rate-limit store unavailable; key failure not counted');
      });
    },
  };
}

/**
 * Fixed one-minute windows per API key (per client address without a valid key). Every answer
 * carries the X-RateLimit-* headers and the IETF RateLimit / RateLimit-Policy fields.
 */
export function rateLimitHook(ctx: AppContext) {
  return async function rateLimit(
    req: FastifyRequest,
    reply: FastifyReply,
    route: FastifyContextConfig,
  ): Promise<void> {
    if (route.unlimited) return;
    const limit = limitFor(req.principal);
    const key = req.principal ? `key:${req.principal.keyId}` : `ip:${req.ip}`;
    const now = ctx.clock.now();
    let hit: { count: number; resetAt: number };
    try {
      hit = await ctx.rateLimits.hit(key, RATE_WINDOW_MS, now);
    } catch (err) {
      // A counter store that is down must not take the API down with it: let the request through.
      req.log.warn({ error: describeError(err) }, 'rate-limit store unavailable; request not counted');
      return;
    }
    const remaining = Math.max(0, limit - hit.count);
    const resetSeconds = Math.max(0, Math.ceil((hit.resetAt - now) / 1000));
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(Math.ceil(hit.resetAt / 1000)),
      'ratelimit-policy': `"default";q=${limit};w=${RATE_WINDOW_MS / 1000}`,
      ratelimit: `"default";r=${remaining};t=${resetSeconds}`,
    };
    void reply.headers(headers);
    if (hit.count > limit) {
      throw new AppError('RATE_LIMITED', `rate limit of ${limit} requests per minute exceeded`, undefined, {
        ...headers,
        'retry-after': String(Math.max(1, resetSeconds)),
      });
    }
  };
}
