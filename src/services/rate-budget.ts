import type { RateLimitStore } from '../adapters/rate-limit/rate-limit-store.js';
import { AppError } from '../errors.js';

/** One budget: `limit` counts per window of `windowMs`, named `policy` in the RateLimit fields. */
export interface Budget {
  policy: string;
  limit: number;
  windowMs: number;
}

/**
 * The rate-limit headers of a counter: X-RateLimit-Limit, -Remaining, -Reset (epoch seconds)
 * and the IETF RateLimit / RateLimit-Policy fields, so a client reads any limit the same way.
 */
export function budgetHeaders(
  budget: Budget,
  hit: { count: number; resetAt: number },
  now: number,
): Record<string, string> {
  const remaining = Math.max(0, budget.limit - hit.count);
  const resetSeconds = Math.max(0, Math.ceil((hit.resetAt - now) / 1000));
  return {
    'x-ratelimit-limit': String(budget.limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(Math.ceil(hit.resetAt / 1000)),
    'ratelimit-policy': `"${budget.policy}";q=${budget.limit};w=${budget.windowMs / 1000}`,
    ratelimit: `"${budget.policy}";r=${remaining};t=${resetSeconds}`,
  };
}

/** The 429 of a spent budget: the rate-limit headers and Retry-After, which every 429 carries. */
export function budgetSpent(
  message: string,
  budget: Budget,
  hit: { count: number; resetAt: number },
  now: number,
): AppError {
  const headers = budgetHeaders(budget, hit, now);
  const retryAfter = Math.max(1, Math.ceil((hit.resetAt - now) / 1000));
  return new AppError('RATE_LIMITED', message, undefined, { ...headers, 'retry-after': String(retryAfter) });
}

/**
 * Counts one use of `key` against `budget`; answers the 429 to throw once it is spent, or
 * undefined. A counter store that is down answers undefined (and `onDown` is told): limits must
 * not take the service down with them.
 */
export async function spendBudget(
  store: RateLimitStore,
  key: string,
  budget: Budget,
  now: number,
  message: string,
  onDown: (err: unknown) => void,
): Promise<AppError | undefined> {
  let hit: { count: number; resetAt: number };
  try {
    hit = await store.hit(key, budget.windowMs, now);
  } catch (err) {
    onDown(err);
    return undefined;
  }
  return hit.count > budget.limit ? budgetSpent(message, budget, hit, now) : undefined;
}
