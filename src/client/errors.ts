/** One field error of the error envelope: `{field, message}`. */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * Every failure the client reports: an error answer of the API (`status` is its HTTP status,
 * `message` and `fieldErrors` come from the envelope `{status, message, errors?}`), or no
 * answer at all (`status` 0, the network error as `cause`).
 */
export class AnnotaryError extends Error {
  override readonly name = 'AnnotaryError';

  constructor(
    message: string,
    readonly status: number,
    readonly fieldErrors: FieldError[] = [],
    readonly method?: string,
    readonly url?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Builds the error from an answer that is not a success; `body` is its parsed JSON, if any. */
  static fromAnswer(response: Response, body: unknown, method: string): AnnotaryError {
    const envelope = isRecord(body) ? body : {};
    const message =
      typeof envelope.message === 'string' && envelope.message
        ? envelope.message
        : `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    const fieldErrors = Array.isArray(envelope.errors) ? envelope.errors.filter(isFieldError) : [];
    return new AnnotaryError(message, response.status, fieldErrors, method, withoutQuery(response.url));
  }

  /** No answer came: refused, reset, DNS, timeout. */
  static fromNetwork(err: unknown, method: string, url: string): AnnotaryError {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
    const detail = cause instanceof Error ? cause.message : String(cause);
    return new AnnotaryError(`no answer from ${originOf(url)}: ${detail}`, 0, [], method, withoutQuery(url), {
      cause: err,
    });
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFieldError(value: unknown): value is FieldError {
  return isRecord(value) && typeof value.field === 'string' && typeof value.message === 'string';
}

// Query strings and signed paths can carry tokens: errors keep the path only.
function withoutQuery(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
