import createClient, { type Client } from 'openapi-fetch';
import { AnnotaryError, isRecord } from './errors.js';
import { retryingFetch, type RetryOptions } from './retry.js';
import type { Paths } from './types.js';

/** The document's paths carry the `/v2` prefix; a deployment's base address ends with it. */
const PATH_PREFIX = '/v2';

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
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

  constructor(options: TransportOptions) {
    this.root = options.baseUrl.endsWith(PATH_PREFIX) ? options.baseUrl.slice(0, -PATH_PREFIX.length) : options.baseUrl;
    this.fetch = retryingFetch(options.retry, options.fetch);
    this.headers = { apikey: options.apiKey, 'user-agent': options.userAgent ?? 'annotary-client' };
    this.api = createClient<Paths>({ baseUrl: this.root, fetch: this.fetch, headers: this.headers });
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
    const headers = { ...(withKey ? this.headers : {}), ...init.headers };
    let response: Response;
    try {
      response = await this.fetch(new Request(target, { method, headers, ...(init.body ? { body: init.body } : {}) }));
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
