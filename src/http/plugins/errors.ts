import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '../../errors.js';
import { describeError } from '../../log-safe.js';

/** The longest path parameter the router takes; longer ones answer 414. */
export const MAX_PARAM_LENGTH = 200;

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** `/categorySchema/tools/0/color` -> `categorySchema.tools[0].color` */
export function pointerToPath(pointer: string, prefix = ''): string {
  let out = prefix;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  }
  return out;
}

function issueMessage(issue: ValidationIssue): string {
  const params = issue.params ?? {};
  if (issue.keyword === 'required' && typeof params.requiredProperties === 'object') {
    return 'is required';
  }
  if (issue.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return `must be one of ${params.allowedValues.map(String).join(', ')}`;
  }
  return issue.message ?? 'is invalid';
}

/** Turns validator issues into one error per field, the most specific message first. */
export function validationErrors(issues: ValidationIssue[], context: string | undefined): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const issue of issues) {
    let field = pointerToPath(issue.instancePath ?? '');
    const params = issue.params ?? {};
    // A missing property is reported on its parent; name the property itself.
    const missing = Array.isArray(params.requiredProperties) ? params.requiredProperties : undefined;
    if (issue.keyword === 'required' && missing) {
      for (const name of missing) {
        const f = field ? `${field}.${String(name)}` : String(name);
        if (!byField.has(f)) byField.set(f, { field: f, message: 'is required' });
      }
      continue;
    }
    if (!field) field = context === 'body' ? 'body' : (context ?? 'request');
    // anyOf/const noise after a specific message adds nothing for the client.
    if (byField.has(field) && (issue.keyword === 'anyOf' || issue.keyword === 'const')) continue;
    if (!byField.has(field)) byField.set(field, { field, message: issueMessage(issue) });
  }
  return [...byField.values()];
}

function send(reply: FastifyReply, status: number, body: Record<string, unknown>, headers?: Record<string, string>) {
  if (headers) void reply.headers(headers);
  return reply.status(status).type('application/json; charset=utf-8').send(body);
}

export const FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'the request body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'the request body is empty but the content type is JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'the request body is larger than the server accepts',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'the content type of the body is not supported',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'the content length does not match the body',
  FST_ERR_CTP_INVALID_TYPE: 'the content type header is invalid',
  FST_ERR_BAD_URL: 'the path is not a valid URL: a percent-encoded sequence in it is not UTF-8',
  FST_ERR_MAX_PARAM_LENGTH: `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`,
};

export function handleError(this: FastifyInstance, err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  if (err instanceof AppError) {
    const body: Record<string, unknown> = { status: err.status >= 500 ? 'error' : 'fail', message: err.message };
    if (err.errors?.length) body.errors = err.errors;
    if (err.status >= 500) req.log.error({ code: err.code }, err.message);
    return send(reply, err.status, body, err.headers);
  }
  if (err.validation) {
    const errors = validationErrors(err.validation as ValidationIssue[], err.validationContext);
    const first = errors[0];
    const message =
      errors.length === 1 && first ? `${first.field}: ${first.message}` : `${errors.length} fields are invalid`;
    return send(reply, 400, { status: 'fail', message, errors });
  }
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // Framework errors (JSON syntax, body size, media type) carry safe, fixed messages.
    const message = FRAMEWORK_MESSAGES[err.code] ?? (err.code?.startsWith('FST_') ? err.message : 'bad request');
    return send(reply, status, { status: 'fail', message });
  }
  // The client learns nothing of an unexpected failure; the log gets its type and code only.
  req.log.error({ error: describeError(err) }, 'request failed');
  return send(reply, 500, { status: 'error', message: 'internal server error' });
}

export function handleNotFound(req: FastifyRequest, reply: FastifyReply) {
  return send(reply, 404, { status: 'fail', message: `no route for ${req.method} ${req.url.split('?')[0]}` });
}

/**
 * A connection that sent no parsable HTTP request (broken request line, headers too large):
 * answered on the raw socket, in the envelope, and closed.
 */
export function handleClientError(err: Error & { code?: string }, socket: Duplex) {
  if (!socket.writable) return socket.destroy();
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431 ? 'the request headers are too large' : status === 408 ? 'the request took too long' : 'bad request';
  const body = JSON.stringify({ status: 'fail', message });
  const reason =
    status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
