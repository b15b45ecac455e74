/**
 * The error answers, documented once in `components.responses` and referenced by every
 * operation that can give them, with the rate-limit headers every answer carries.
 */

export interface OpenApiOperation {
  operationId?: string;
  security?: unknown[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses?: Record<string, { headers?: Record<string, unknown> } & Record<string, unknown>>;
}

const header = (description: string) => ({ description, schema: { type: 'integer' } });

export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

const RESPONSES = {
  BadRequest: [400, 'The request is invalid; `errors` names each bad field.'],
  Unauthorized: [401, 'The `apikey` header is missing or not a valid key.'],
  Forbidden: [403, 'Your role does not allow this operation.'],
  NotFound: [404, 'The resource does not exist or is not visible to you.'],
  Conflict: [409, 'The request conflicts with the current state (named in the message).'],
  PayloadTooLarge: [413, 'The body or the uploaded file is larger than the server accepts.'],
  TooManyRequests: [429, 'The rate limit of your key is exceeded; retry after `Retry-After` seconds.'],
  InternalError: [500, 'The server failed; nothing about the cause is disclosed. Retry with backoff.'],
  BadGateway: [502, 'A storage provider or other upstream service failed or refused the request.'],
} as const;
type ResponseName = keyof typeof RESPONSES;

const errorBody = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } };

export const ERROR_RESPONSES = {
  headers: {
    'X-RateLimit-Limit': header('Requests allowed per one-minute window for this key.'),
    'X-RateLimit-Remaining': header('Requests left in the current window.'),
    'X-RateLimit-Reset': header('When the window resets, in seconds since the Unix epoch.'),
    'Retry-After': header('Seconds to wait before retrying.'),
  },
  responses: Object.fromEntries(
    Object.entries(RESPONSES).map(([name, [status, description]]) => [
      name,
      {
        description,
        headers:
          status === 401
            ? {}
            : {
                ...RATE_LIMIT_HEADERS,
                ...(status === 429 ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}),
              },
        content: errorBody,
      },
    ]),
  ),
};

const byStatus = Object.fromEntries(
  Object.entries(RESPONSES).map(([name, [status]]) => [String(status), name]),
) as Record<string, ResponseName>;

/** The error answers of an operation: the ones every operation can give, plus its own. */
export function errorResponsesOf(op: OpenApiOperation, isPublic: boolean): Record<string, { $ref: string }> {
  const statuses = isPublic ? [400, 403, 404, 500] : [400, 401, 403, 404, 429, 500];
  for (const extra of (op as { 'x-errors'?: number[] })['x-errors'] ?? []) statuses.push(extra);
  delete (op as { 'x-errors'?: number[] })['x-errors'];
  const out: Record<string, { $ref: string }> = {};
  for (const status of statuses.sort()) {
    const name = byStatus[String(status)];
    if (name) out[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  return out;
}
