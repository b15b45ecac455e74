/**
 * Fixed-window request counters. Windows are aligned to the epoch (floor(now / windowMs)), so
 * every process that shares a store agrees on when a window resets.
 */
export interface RateLimitStore {
  /** Counts one request for `key` and answers the count so far in the current window. */
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
  /** The count so far in the current window, without counting. */
  peek(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
  close(): Promise<void>;
}

export function windowOf(now: number, windowMs: number): { index: number; resetAt: number } {
  const index = Math.floor(now / windowMs);
  return { index, resetAt: (index + 1) * windowMs };
}
