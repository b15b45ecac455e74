/**
 * The retry policy, as a `fetch` that openapi-fetch (and the file helpers) call through.
 *
 * 429 and 5xx answers, and failures to connect, are tried again with exponential backoff and
 * full jitter, or after the wait the server names (`Retry-After`, else `X-RateLimit-Reset`),
 * bounded by a number of attempts and a total time. A request that is not idempotent (POST,
 * PATCH) is tried again only when the failure proves the server did not apply it: a 429, a 503
 * carrying `Retry-After` (refused before handling: rate limiter, overload), or a connection
 * that was never made. A 500, a 502/504 or a connection reset after sending prove nothing.
 */
export interface RetryOptions {
  /** Attempts in all, the first included (default 5; 1 turns retries off). */
  maxAttempts?: number;
  /** No retry starts once this much time has passed since the first attempt (default 60 s). */
  maxElapsedMs?: number;
  /** First backoff ceiling; it doubles each attempt (default 500 ms). */
  baseDelayMs?: number;
  /** Largest wait between two attempts (default 30 s). */
  maxDelayMs?: number;
}

/** Seams for the clock and randomness (the defaults are the real ones). */
export interface RetryRuntime {
  now(): number;
  sleep(ms: number, signal?: AbortSignal | null): Promise<void>;
  random(): number;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
// Codes of a connection that was never made: the request cannot have reached the server.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

const realRuntime: RetryRuntime = {
  now: () => Date.now(),
  random: () => Math.random(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason as Error)), { once: true });
    }),
};

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** True when the answer proves a request was refused before the server handled it. */
export function provesNotApplied(res: Response): boolean {
  return res.status === 429 || (res.status === 503 && res.headers.has('retry-after'));
}

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** The wait the server asks for, in ms: `Retry-After` (seconds or a date), else `X-RateLimit-Reset`. */
export function serverWaitMs(res: Response, now: number): number | undefined {
  const retryAfter = res.headers.get('retry-after');
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  if (res.status === 429 && reset > 0) {
    // Unix seconds on the server's clock: measured from its Date header when it sent one.
    const serverNow = Date.parse(res.headers.get('date') ?? '') || now;
    return Math.max(0, reset * 1000 - serverNow);
  }
  return undefined;
}

export function retryingFetch(
  options: RetryOptions = {},
  baseFetch: (req: Request) => Promise<Response> = (req) => fetch(req),
  runtime: RetryRuntime = realRuntime,
): (req: Request) => Promise<Response> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  const maxElapsedMs = options.maxElapsedMs ?? 60_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;

  const backoff = (attempt: number) => runtime.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));

  return async (request) => {
    const started = runtime.now();
    const idempotent = IDEMPOTENT.has(request.method.toUpperCase());
    // Within budget: wait and go again; otherwise the caller gets the last answer or error.
    const waitFor = async (attempt: number, serverWait: number | undefined): Promise<boolean> => {
      if (attempt >= maxAttempts) return false;
      // The server's own wait is kept whole (retrying sooner only earns another refusal).
      const wait = serverWait === undefined ? backoff(attempt) : serverWait + runtime.random() * 250;
      if (runtime.now() - started + wait > maxElapsedMs) return false;
      await runtime.sleep(wait, request.signal);
      return true;
    };
    for (let attempt = 1; ; attempt++) {
      // The body of a Request can be read once: each attempt sends a copy.
      const copy = request.clone();
      let res: Response;
      try {
        res = await baseFetch(copy);
      } catch (err) {
        const code = errorCode(err);
        const retryable = code !== undefined && (idempotent || NOT_SENT_CODES.has(code));
        if (request.signal.aborted || !retryable || !(await waitFor(attempt, undefined))) throw err;
        continue;
      }
      if (!isRetryableStatus(res.status) || (!idempotent && !provesNotApplied(res))) return res;
      if (!(await waitFor(attempt, serverWaitMs(res, runtime.now())))) return res;
      await res.body?.cancel();
    }
  };
}
