import createClient, { type Client } from 'openapi-fetch';
import { AnnotaryError, isRecord } from './errors.js';
import { retryingFetch, type RetryOptions } from './retry.js';
import type { Paths } from './types.js';

/** The document's paths carry the `/v2` prefix; a deployment's base address ends with it. */
const PATH_PREFIX = '/v2';
/** The header a cookie-authenticated write carries its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface TransportOptions {
  baseUrl: string;
  /** The `apikey` header; absent in cookie mode (a browser's session, `cookieMode` below). */
  apiKey?: string | undefined;
  /**
   * Cookie mode, for the console in a browser: no `apikey` header, the session cookie goes
   * with every same-origin request, and each write carries the session's CSRF token.
   */
  cookieMode?: { csrfToken: () => string | undefined } | undefined;
  retry?: RetryOptions | undefined;
  /** The fetch under the retries (default: the global fetch). */
  fetch?: ((req: Request) => Promise<Response>) | undefined;
  userAgent?: string | undefined;
}

interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** One connection to a deployment: the typed openapi-fetch client, and raw requests for files. */
export class Transport {
  readonly api: Client<Paths>;
  readonly fetch: (req: Request) => Promise<Response>;
  private readonly root: string;
  private readonly headers: Record<string, string>;
  private readonly cookieMode: TransportOptions['cookieMode'];

  constructor(options: TransportOptions) {
    this.root = options.baseUrl.endsWith(PATH_PREFIX) ? options.baseUrl.slice(0, -PATH_PREFIX.length) : options.baseUrl;
    this.fetch = retryingFetch(options.retry, options.fetch);
    const cookieMode = options.cookieMode;
    this.cookieMode = cookieMode;
    // A browser sends its own user-agent; only scripts name themselves.
    this.headers = cookieMode
      ? {}
      : { ...(options.apiKey ? { apikey: options.apiKey } : {}), 'user-agent': options.userAgent ?? 'annotary-client' };
    this.api = createClient<Paths>({
      baseUrl: this.root,
      fetch: this.fetch,
      headers: this.headers,
      ...(cookieMode ? { credentials: 'same-origin' as const } : {}),
    });
    if (cookieMode) {
      this.api.use({
        onRequest: ({ request }) => {
          const csrf = this.csrfHeader(request.method);
          for (const [name, value] of Object.entries(csrf)) request.headers.set(name, value);
          return request;
        },
      });
    }
  }

  /** The CSRF header a write sends in cookie mode; nothing for reads or with an API key. */
  private csrfHeader(method: string): Record<string, string> {
    const token = this.cookieMode?.csrfToken();
    return token && !SAFE_METHODS.has(method.toUpperCase()) ? { [CSRF_HEADER]: token } : {};
  }

  /** Awaits an openapi-fetch call: the envelope's `data`, or an AnnotaryError. */
  async unwrap<T>(method: string, path: string, call: Promise<FetchResult>): Promise<T> {
    let result: FetchResult;
    try {
      result = await call;
    } catch (err) {
      throw AnnotaryError.fromNetwork(err, method, this.root + path);
    }
    if (!result.response.ok) throw AnnotaryError.fromAnswer(result.response, result.error, method);
    const body = result.data;
    // The cast is the single place where the document's type meets the wire.
    return (isRecord(body) && 'data' in body ? body.data : body) as T;
  }

  /**
   * A request outside the typed client (multipart bodies, signed links). `withKey: false` for
   * URLs that carry their own credential: the API key never goes to them.
   */
  async send(
    method: string,
    url: string,
    init: { body?: RequestInit['body']; headers?: Record<string, string> } = {},
    withKey = true,
  ) {
    const target = url.startsWith('/') ? this.root + url : url;
    const headers = { ...(withKey ? { ...this.headers, ...this.csrfHeader(method) } : {}), ...init.headers };
    // Cookie mode: the session cookie goes to our own address only, never to a signed link.
    const credentials: RequestInit['credentials'] = withKey ? 'same-origin' : 'omit';
    let response: Response;
    try {
      response = await this.fetch(
        new Request(target, {
          method,
          headers,
          ...(this.cookieMode ? { credentials } : {}),
          ...(init.body ? { body: init.body } : {}),
        }),
      );
    } catch (err) {
      throw AnnotaryError.fromNetwork(err, method, target);
    }
    if (!response.ok) throw AnnotaryError.fromAnswer(response, await readJson(response), method);
    return response;
  }

  /** `send`, then the envelope's `data`. */
  async sendJson<T>(...args: Parameters<Transport['send']>): Promise<T> {
    const body = await readJson(await this.send(...args));
    return (isRecord(body) && 'data' in body ? body.data : body) as T;
  }
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}
