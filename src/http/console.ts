import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `npm run build` puts the console (vite's outDir); the same from src/ and from dist/. */
export const CONSOLE_DIR = path.resolve(import.meta.dirname, '../../dist/web');

/**
 * Paths the single-page console answers with its index.html (its router draws the page). Listed,
 * not a catch-all, so an unknown /v2 path still answers the API's 404 envelope.
 */
export const CONSOLE_PATHS = [
  '/',
  '/signin',
  '/account',
  '/projects',
  '/projects/*',
  '/org',
  '/org/*',
  '/work',
  '/work/*',
  '/invite/*',
  '/password/*',
];

const HASHED = /^\/?assets\//;

// Images and text assets come from wherever the user's storage signs them; scripts only from us.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data: blob: https: http:",
  "media-src 'self' blob: https: http:",
  "connect-src 'self' https: http:",
  "style-src 'self' 'unsafe-inline'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('cache-control', 'no-cache')
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin');
}

/**
 * Serves the built console at `/`: hashed files under /assets are immutable for a year,
 * index.html and the other top-level files are revalidated on every load. Every route here is
 * public and not rate-limited (the console's own API calls are).
 */
export async function registerConsole(app: FastifyInstance, dir: string = CONSOLE_DIR): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true, unlimited: true };
      route.schema = { ...route.schema, hide: true };
    });
    const index = path.join(dir, 'index.html');
    if (!fs.existsSync(index)) {
      for (const url of CONSOLE_PATHS) {
        scope.get(url, async (_req, reply) =>
          pageHeaders(reply)
            .status(503)
            .type('text/html; charset=utf-8')
            .send(
              '<!doctype html><title>Annotary</title><p>The console is not built: run <code>npm run build</code>.</p>',
            ),
        );
      }
      return;
    }
    await scope.register(fastifyStatic, {
      root: dir,
      prefix: '/',
      // One route per file present at start-up, so no pattern shadows the API's paths.
      wildcard: false,
      index: false,
      cacheControl: false,
      setHeaders(res, filePath) {
        const rel = path.relative(dir, filePath);
        res.setHeader('x-content-type-options', 'nosniff');
        res.setHeader(
          'cache-control',
          HASHED.test(rel) ? 'public, max-age=31536000, immutable' : 'public, max-age=0, must-revalidate',
        );
      },
    });
    const page = fs.readFileSync(index);
    for (const url of CONSOLE_PATHS) {
      scope.get(url, async (_req, reply) => pageHeaders(reply).type('text/html; charset=utf-8').send(page));
    }
  });
}
