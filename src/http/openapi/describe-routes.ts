import type { RouteOptions } from 'fastify';
import { ADMIN_OPERATIONS } from './operations-admin.js';
import { successOf, type Operation } from './operation-types.js';
import { WORK_OPERATIONS } from './operations-work.js';

/** Every documented operation, by `METHOD /route/pattern`. */
export const OPERATIONS: Record<string, Operation> = { ...WORK_OPERATIONS, ...ADMIN_OPERATIONS };

function successResponse(op: Operation) {
  const description = op.status === 201 ? 'Created.' : 'Success.';
  if (op.raw) return { description, content: { [op.raw.contentType]: { schema: op.data } } };
  return { description, ...successOf(op.data) };
}

/**
 * onRoute hook: gives a route its operationId, summary, description and success schema. The
 * success schema also serialises the answer (fast-json-stringify), so it declares every field
 * the service answers. Error statuses are left to the document (src/http/openapi/document.ts):
 * the error handler's envelope is serialised as it is.
 */
export function describeRoute(route: RouteOptions): void {
  const method = Array.isArray(route.method) ? route.method[0] : route.method;
  const op = OPERATIONS[`${String(method)} ${route.url}`];
  if (!op || method === 'HEAD') return;
  const schema = route.schema ?? {};
  const description = [op.description, schema.description].filter(Boolean).join('\n\n');
  route.schema = {
    ...schema,
    operationId: op.id,
    summary: op.summary,
    ...(description ? { description } : {}),
    response: { [op.status]: successResponse(op) },
    ...(op.errors ? { 'x-errors': op.errors } : {}),
  };
}
