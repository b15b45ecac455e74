/**
 * The console's one door to the API. Until the typed client (src/client) lands on this branch,
 * requests go through this small fetch wrapper; the hooks beside it are the only callers, so the
 * switch to the client happens here and nowhere else.
 *
 * Credentials: the session cookie (same-origin) by default; an API key pasted at sign-in is
 * kept for the tab in sessionStorage and sent as the `apikey` header instead.
 */

export interface FieldError {
  field: string;
  message: string;
}

/** An error answer of the API (`status` its HTTP status), or no answer at all (`status` 0). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(message);
  }
}

const KEY_STORAGE = 'annotary.apiKey';

export function storedApiKey(): string | null {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function setStoredApiKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

type Query = Record<string, string | number | boolean | undefined | readonly string[]>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (Array.isArray(value)) for (const v of value) params.append(name, v);
    else params.set(name, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldErrorsOf(body: Record<string, unknown>): FieldError[] {
  const list = Array.isArray(body.errors) ? body.errors : [];
  return list.filter(
    (e): e is FieldError => isRecord(e) && typeof e.field === 'string' && typeof e.message === 'string',
  );
}

/** Sends one request under /v2 and answers the envelope's `data`; throws ApiError otherwise. */
export async function api<T>(method: string, path: string, opts: { query?: Query; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const key = storedApiKey();
  if (key) headers.apikey = key;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(withQuery(`/v2${path}`, opts.query), {
      method,
      headers,
      credentials: 'same-origin',
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
  } catch {
    throw new ApiError('The server could not be reached. Check your connection and try again.', 0);
  }
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const envelope = isRecord(body) ? body : {};
  if (!res.ok) {
    const message = typeof envelope.message === 'string' && envelope.message ? envelope.message : `HTTP ${res.status}`;
    throw new ApiError(message, res.status, fieldErrorsOf(envelope));
  }
  return envelope.data as T;
}
