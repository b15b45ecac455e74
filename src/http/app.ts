import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { type TypeBoxTypeProvider, TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { describeError } from '../log-safe.js';
import { registerConsole } from './console.js';
import { identifyHook, requireKeyHook } from './plugins/auth.js';
import { handleError, handleNotFound } from './plugins/errors.js';
import { normalizeInput } from './plugins/nulls.js';
import { rateLimitHook } from './plugins/rate-limit.js';
import { fileRoutes } from './routes/files.routes.js';
import { registerRoutes } from './routes/index.js';

export type App = FastifyInstance;

/** Builds the HTTP app around a context; does not listen (tests use inject()). */
export async function buildApp(ctx: AppContext): Promise<App> {
  const logger: FastifyBaseLogger = ctx.log;
  const app = Fastify({
    loggerInstance: logger,
    // We log one line per request ourselves: route pattern, not the URL (signed paths carry tokens).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: ctx.config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    trustProxy: true,
    ajv: { customOptions: { coerceTypes: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // The contract sends a body with GET /annotate/{taskId}.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  // Clients that set `Content-Type: application/json` on every request send it on GETs with no
  // body too: an empty JSON body means "no body", not an error.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    return parseJson(req, text, done);
  });
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  // Plain JSON.stringify: response schemas document the API but must not strip the unknown
  // properties users keep inside their stored documents.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);

  app.addHook('onRequest', identifyHook(ctx));
  app.addHook('onRequest', rateLimitHook(ctx));
  app.addHook('onRequest', requireKeyHook);
  app.addHook('preValidation', async (req) => {
    if (req.body !== undefined && req.body !== null) req.body = normalizeInput(req.body);
    if (req.query && typeof req.query === 'object') normalizeInput(req.query);
  });
  app.addHook('onResponse', async (req, reply) => {
    req.log.info(
      {
        method: req.method,
        route: req.routeOptions.url ?? '(none)',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });

  // The docs page and its assets are public and not counted.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, public: true, unlimited: true };
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Annotary REST API',
        version: '2.0.0',
        description: 'Wire-compatible annotation platform API v2.',
      },
      servers: [{ url: ctx.config.publicUrl }],
      components: { securitySchemes: { apikey: { type: 'apiKey', in: 'header', name: 'apikey' } } },
      security: [{ apikey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });

  app.get('/healthz', { config: { public: true, unlimited: true }, schema: { hide: true } }, async (_req, reply) => {
    try {
      await sql`select 1`.execute(ctx.store.db);
      return { status: 'success', data: { store: ctx.store.engine } };
    } catch (err) {
      ctx.log.warn({ error: describeError(err) }, 'health check: store did not answer');
      return reply.status(503).send({ status: 'error', message: 'store unavailable' });
    }
  });

  // Multipart uploads (instructions, chat files): past the upload limit a file part fails with 413.
  await app.register(multipart, { limits: { fileSize: ctx.config.uploadLimit } });
  // Signed file-store paths live at the root: `${publicUrl}/files/<expiry>/<sig>/<key>`.
  await app.register(fileRoutes, { ctx });

  await app.register(
    async (v2) => {
      v2.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
      await registerRoutes(v2, ctx);
    },
    { prefix: '/v2' },
  );
  // The web console (single-page app) at `/`.
  await registerConsole(app);
  return app;
}
