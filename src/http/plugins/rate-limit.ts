import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { describeError } from '../../log-safe.js';
import type { Principal } from '../../access.js';
import { type Budget, budgetHeaders, budgetSpent, spendBudget } from '../../services/rate-budget.js';

export const RATE_WINDOW_MS = 60_000;

const PLAN_LIMITS: Record<string, number> = { standard: 100, professional: 500, enterprise: 1000 };

/** Requests per minute for the caller: its organization's plan, or standard for anonymous callers. */
export function limitFor(p: Principal | undefined): number {
  if (!p) return PLAN_LIMITS.standard ?? 100;
  if (p.plan === 'enterprise' && p.planLimit) return p.planLimit;
  return PLAN_LIMITS[p.plan] ?? PLAN_LIMITS.standard ?? 100;
}

/** Invalid API keys one client address may send per minute. */
export const AUTH_FAILURES_PER_MINUTE = 20;
/** Invalid API keys starting with the same characters (from any address) per minute. */
export const AUTH_FAILURES_PER_PREFIX_PER_MINUTE = 20;
/** How many leading characters of a key make its prefix (what the store keeps of a key, too). */
export const KEY_PREFIX_LENGTH = 8;

const perAddress: Budget = { policy: 'invalid-key', limit: AUTH_FAILURES_PER_MINUTE, windowMs: RATE_WINDOW_MS };
const perPrefix: Budget = {
  policy: 'invalid-key-prefix',
  limit: AUTH_FAILURES_PER_PREFIX_PER_MINUTE,
  windowMs: RATE_WINDOW_MS,
};

/**
 * Key guessing is slowed per client address (req.ip: the socket's address unless
 * ANNOTARY_TRUST_PROXY names the proxy in front) and per key prefix tried (guesses at one key
 * spread over many addresses). Only invalid keys are counted and refused: a valid key is always
 * looked up and served, so a script with a wrong key behind an office's NAT cannot lock out the
 * office. The lookup itself stays cheap (a hash, an index probe, a negative cache of hashes known
 * to be invalid: principal-cache.ts). The counters live in the rate-limit store, so replicas
 * sharing Redis share them.
 */
export function authFailureLimiter(ctx: AppContext) {
  return {
    /** Counts one invalid key; throws the 429 once its address or its prefix spent the budget. */
    async failed(req: FastifyRequest, rawKey: string): Promise<void> {
      const now = ctx.clock.now();
      const onDown = (err: unknown) =>
        req.log.warn({ error: describeError(err) }, 'rate-limit store unavailable; key failure not counted');
      const [byAddress, byPrefix] = await Promise.all([
        spendBudget(
          ctx.rateLimits,
          `authfail:${req.ip}`,
          perAddress,
          now,
          `too many requests with an invalid API key from this address (${perAddress.limit} per minute)`,
          onDown,
        ),
        spendBudget(
          ctx.rateLimits,
          `authfail-prefix:${rawKey.slice(0, KEY_PREFIX_LENGTH)}`,
          perPrefix,
          now,
          `too many requests with an invalid API key starting with these characters (${perPrefix.limit} per minute)`,
          onDown,
        ),
      ]);
      const refusal = byAddress ?? byPrefix;
      if (refusal) throw refusal;
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
    const budget: Budget = { policy: 'default', limit, windowMs: RATE_WINDOW_MS };
    void reply.headers(budgetHeaders(budget, hit, now));
    if (hit.count > limit) throw budgetSpent(`rate limit of ${limit} requests per minute exceeded`, budget, hit, now);
  };
}
