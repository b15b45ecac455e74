import { type RetryPolicy, StorageFailure } from './storage-adapter.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Exponential backoff with "equal jitter": half fixed, half random, capped. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** A kept-alive connection the provider closed while we were busy signing: not an outage. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);
const STALE_RETRIES = 2;

/**
 * Runs one provider call. Failures are classified into StorageFailure; rate-limit answers are
 * tried again with backoff when the policy allows. A reset connection is tried again at once,
 * up to twice, whatever the policy (it is how a server ends an idle keep-alive connection); every
 * other failure is thrown at once.
 */
export async function withRetry<T>(
  op: () => Promise<T>,
  classify: (err: unknown) => StorageFailure,
  policy: RetryPolicy,
): Promise<T> {
  let resets = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      const failure = err instanceof StorageFailure ? err : classify(err);
      failure.attempts = attempt;
      if (failure.kind === 'unreachable' && STALE_CONNECTION.has(failure.detail) && resets < STALE_RETRIES) {
        resets++;
        continue;
      }
      const again = failure.kind === 'rate_limited' && policy.retryOnSlowDown && attempt < policy.maxAttempts;
      if (!again) throw failure;
      await sleep(backoffMs(policy, attempt));
    }
  }
}
