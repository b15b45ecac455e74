import type { StaticDocumentSpec } from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The docs page (Swagger UI) at /docs, loaded on its first request instead of at start.
 * @fastify/swagger-ui and what it needs (@fastify/static, yaml) were a large part of the
 * server's start-up (docs/benchmarks.md, startup), for a page few requests
 * ask for. Routes must exist before the app is ready, so two thin routes (/docs and /docs/*) hand
 * each request to a small Fastify instance built the first time: Swagger UI on the main app's
 * document (@fastify/swagger in static mode), with the same options as when it was registered
 * on the app itself. Answers are passed on as they are (status, headers, bytes); its 404s go
 * to the app's own not-found answer.
 */

const ROUTE_PREFIX = '/docs';
const UI_CONFIG = { docExpansion: 'list', displayOperationId: true, filter: true, persistAuthorization: true } as const;
/** Set by the server that sends the answer, not copied from the inner one. */
const NOT_COPIED = new Set(['content-length', 'connection', 'keep-alive', 'transfer-encoding', 'date']);

async function buildDocsApp(app: FastifyInstance): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }] = await Promise.all([
    import('fastify'),
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ]);
  const docs = Fastify({ logger: false });
  // The app's OpenAPI 3.1 document (static mode's types name 2.0 and 3.0 only; it serves any).
  const document = app.swagger() as unknown as StaticDocumentSpec['document'];
  await docs.register(swagger, { mode: 'static', specification: { document } });
  await docs.register(swaggerUi, { routePrefix: ROUTE_PREFIX, uiConfig: UI_CONFIG });
  await docs.ready();
  return docs;
}

export function registerDocsPage(app: FastifyInstance): void {
  let docsApp: Promise<FastifyInstance> | undefined;
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    docsApp ??= buildDocsApp(app).catch((err: unknown) => {
      docsApp = undefined; // tried again on the next request
      throw err;
    });
    const docs = await docsApp;
    // GET also for HEAD: the app's HEAD route drops the body and keeps its length.
    const res = await docs.inject({ method: 'GET', url: req.url, headers: req.headers });
    if (res.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !NOT_COPIED.has(name)) reply.header(name, value);
    }
    reply.code(res.statusCode);
    return res.rawPayload.length > 0 ? reply.send(res.rawPayload) : reply.send();
  };
  const options = { schema: { hide: true } };
  app.get(ROUTE_PREFIX, options, handler);
  app.get(`${ROUTE_PREFIX}/*`, options, handler);
}
