import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { describeError } from '../log-safe.js';
import { openPrincipalCache, type PrincipalCache } from '../services/identity/principal-cache.js';
import { registerConsole } from './console.js';
import { lazySerializerFactory, lazyTypeBoxValidatorCompiler } from './lazy-compilers.js';
import { csrfHook, identifyHook, requireKey } from './plugins/auth.js';
import { handleClientError, handleError, handleNotFound, MAX_PARAM_LENGTH } from './plugins/errors.js';
import { methodNotAllowed } from './plugins/method-not-allowed.js';
import { normalizeInput } from './plugins/nulls.js';
import { rateLimitHook } from './plugins/rate-limit.js';
import { requestLoggerFactory } from './request-logger.js';
import { componentSchemas } from './openapi/components.js';
import { describeRoute } from './openapi/describe-routes.js';
import { registerDocsPage } from './openapi/docs-page.js';
import { swaggerOptions } from './openapi/document.js';
import { fileRoutes } from './routes/files.routes.js';
import { registerRoutes } from './routes/index.js';

export type App = FastifyInstance;

declare module 'fastify' {
  interface FastifyInstance {
    /** Resolved API keys for a few seconds, dropped on every replica when keys, users or plans change. */
    principals: PrincipalCache;
  }
}

/** A hop count as the function Fastify's types accept (its own number option does the same). */
function trustProxyOption(tp: boolean | number | string[]): boolean | string[] | ((a: string, hop: number) => boolean) {
  return typeof tp === 'number' ? (_address: string, hop: number) => hop < tp : tp;
}

export interface BuildOptions {
  /** Runs on the root instance before any route exists: hooks added here see every route. */
  beforeRoutes?: (app: App) => void;
}

/** Builds the HTTP app around a context; does not listen (tests use inject()). */
export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<App> {
  const logger: FastifyBaseLogger = ctx.log;
  const app = Fastify({
    loggerInstance: logger,
    // We log one line per request ourselves: route pattern, not the URL (signed paths carry tokens).
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: ctx.config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH },
    // X-Forwarded-For counts only from proxies the operator named (ANNOTARY_TRUST_PROXY):
    // trusted from anyone, it would give every forged address a fresh rate-limit bucket.
    trustProxy: trustProxyOption(ctx.config.trustProxy),
    ajv: { customOptions: { coerceTypes: false } },
    // Errors the router raises before any hook (an undecodable path, an over-long parameter)
    // and sockets that do not speak HTTP answer the same envelope as everything else.
    frameworkErrors: handleError,
    clientErrorHandler: handleClientError,
    // Each route's serialiser compiles on its first answer, not all of them at start.
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  const wrongMethods = methodNotAllowed(app);

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
  app.setValidatorCompiler(lazyTypeBoxValidatorCompiler);
  // The named resources of the document. Success answers are serialised with their schema
  // (fast-json-stringify): stored documents in them declare `additionalProperties: true`.
  for (const schema of componentSchemas()) app.addSchema(schema);
  app.addHook('onRoute', describeRoute);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);

  // Parses the Cookie header before our hooks: the console's session rides on it.
  await app.register(cookie);
  // The checks every request passes, in this order, as one hook: each async hook costs Fastify
  // promise turns of its own, and a GET task is only a few hundred microseconds in all.
  const principals = await openPrincipalCache(ctx);
  app.decorate('principals', principals);
  app.addHook('onClose', () => principals.close());
  const identify = identifyHook(ctx, principals);
  const rateLimit = rateLimitHook(ctx);
  const csrf = csrfHook(ctx);
  app.addHook('onRequest', async (req, reply) => {
    // A getter that builds a new object on every read: read once.
    const route = req.routeOptions;
    await identify(req);
    await rateLimit(req, reply, route.config);
    requireKey(req, route);
    csrf(req);
  });
  app.addHook('preValidation', (req, _reply, done) => {
    if (req.body !== undefined && req.body !== null) req.body = normalizeInput(req.body);
    if (req.query && typeof req.query === 'object') normalizeInput(req.query);
    done();
  });
  // Written by the app's logger with the request id, as the request's child would write it:
  // `req.log` then makes no child for a request that logs nothing else.
  app.addHook('onResponse', (req, reply, done) => {
    logger.info(
      {
        reqId: req.id,
        method: req.method,
        route: req.routeOptions.url ?? '(none)',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        // Who asked, by ids only: the key's id (or `session:<id>`), never the key or the cookie.
        ip: req.ip,
        userId: req.principal?.userId,
        keyId: req.principal?.keyId,
      },
      'request',
    );
    done();
  });

  options.beforeRoutes?.(app);

  // The docs page and its assets are public and not counted.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, public: true, unlimited: true };
  });

  await app.register(swagger, swaggerOptions(ctx.config));
  // Swagger UI loads with the first request for /docs.
  registerDocsPage(app);

  app.get('/healthz', { config: { public: true, unlimited: true }, schema: { hide: true } }, async (_req, reply) => {
    try {
      await sql`select 1`.execute(ctx.store.db);
      return { status: 'success', data: { store: ctx.store.engine, deployment: ctx.config.deployment } };
    } catch (err) {
      ctx.log.warn({ error: describeError(err) }, 'health check: store did not answer');
      return reply.status(503).send({ status: 'error', message: 'store unavailable' });
    }
  });

  // Multipart bodies are read only by the upload routes (routes/uploads.routes.ts registers
  // @fastify/multipart, whose three hooks would otherwise run on every request). Elsewhere such
  // a body is left unread, as that plugin's own parser does.
  app.addContentTypeParser('multipart/form-data', (_req, _payload, done) => done(null));
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
  wrongMethods.register();
  return app;
}
