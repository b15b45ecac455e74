import type { FastifyInstance, RouteOptions } from 'fastify';
import { AppError } from '../../errors.js';

/** The methods a path may be asked with; any of them missing on a known path is a 405. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const ANSWERS_405 = Symbol('answers405');

/**
 * A known path asked with a method it does not serve answers 405 with `Allow` (RFC 9110), not
 * the 404 of an unknown path. Call `watch` before the routes are registered and `register` after:
 * every path gets one more route for the methods it lacks, hidden from the OpenAPI document.
 */
export function methodNotAllowed(app: FastifyInstance) {
  const methodsByUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route: RouteOptions) => {
    if ((route.config as Record<symbol, unknown> | undefined)?.[ANSWERS_405]) return;
    const set = methodsByUrl.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) set.add(m.toUpperCase());
    // Fastify answers HEAD on every GET route by itself.
    if (set.has('GET')) set.add('HEAD');
    methodsByUrl.set(route.url, set);
  });
  return {
    register() {
      for (const [url, served] of methodsByUrl) {
        const missing = METHODS.filter((m) => !served.has(m));
        if (missing.length === 0) continue;
        const allow = METHODS.filter((m) => served.has(m)).join(', ');
        app.route({
          method: missing,
          url,
          // Public like the OpenAPI document that lists these paths: a wrong method is 405 with or without a key.
          config: { [ANSWERS_405]: true, public: true },
          schema: { hide: true },
          handler: async () => {
            throw new AppError('METHOD_NOT_ALLOWED', `this path answers ${allow} only`, undefined, { allow });
          },
        });
      }
    },
  };
}
