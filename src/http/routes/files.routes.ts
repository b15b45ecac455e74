import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import send from '@fastify/send';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { badRequest, notFound } from '../../errors.js';
import { FileLinkParams } from '../../schemas/file.js';
import { READ_URL_SECONDS, receiveUpload, resolveReadLink } from '../../services/files/file.service.js';
import { type FileLink, fileStoreOf } from '../../services/files/file-url.js';
import { ok } from '../reply.js';

/*
 * The signed paths of the server's file store, `/files/<expiry>/<sig>/<key>`, outside /v2: the
 * signature in the path is the credential (no API key), and they are not rate-limited (a video
 * viewer issues many Range requests). Registered at the root because publicUrl has no /v2.
 */

/** Types a browser would run as a page: served sandboxed (no scripts, a unique origin). */
const ACTIVE_TYPES = /^(text\/html|image\/svg\+xml|application\/xhtml\+xml|text\/xml|application\/xml)/i;

/**
 * The request body as a stream the store may destroy on failure without destroying the socket
 * (the 413 or 4xx must still reach the client); a client that aborts ends it with an error, so
 * the store drops its partial file.
 */
function uploadBody(raw: IncomingMessage): Readable {
  const body = new PassThrough();
  // The store attaches its own listeners a moment later; an abort before that must not be an
  // unhandled 'error' (the error stays on the stream, and the store's pipeline sees it).
  body.on('error', () => undefined);
  raw.on('error', (err) => body.destroy(err));
  raw.on('close', () => {
    if (!raw.complete) body.destroy(badRequest('the upload was interrupted before its end'));
  });
  raw.pipe(body);
  return body;
}

/** The link in the path; the wildcard (the key) is not in the params schema. */
function linkOf(params: { expiry: string; sig: string }): FileLink {
  const key = (params as { '*'?: string })['*'] ?? '';
  return { expiry: params.expiry, sig: params.sig, key };
}

function declaredLength(header: string | undefined): number | undefined {
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined;
}

export const fileRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const config = { public: true, unlimited: true };
  const schema = { hide: true, params: FileLinkParams };
  // Raw bytes of any type, or of none [client: requests.put(url, data=bytes)]: nothing is parsed
  // or buffered here, the handler streams the request into the store.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  app.put('/files/:expiry/:sig/*', { config, schema }, async (req, reply) => {
    try {
      const length = declaredLength(req.headers['content-length']);
      return ok(await receiveUpload(ctx, linkOf(req.params), uploadBody(req.raw), length));
    } catch (err) {
      // The rest of a refused body is not worth reading: close the connection after the answer.
      void reply.header('connection', 'close');
      throw err;
    }
  });

  app.get('/files/:expiry/:sig/*', { config, schema }, async (req, reply) => {
    const target = await resolveReadLink(ctx, linkOf(req.params));
    if ('redirect' in target) return reply.redirect(target.redirect, 302);
    // @fastify/send: content type from the extension, Content-Length, ETag / Last-Modified,
    // conditional requests, HEAD, and single byte ranges (206, or 416 with Content-Range).
    const result = await send(req.raw, target.key, {
      root: fileStoreOf(ctx).root,
      dotfiles: 'deny',
      index: false,
      extensions: false,
      cacheControl: false,
      acceptRanges: true,
      etag: true,
      lastModified: true,
    });
    if (result.type !== 'file') {
      result.stream.destroy();
      if (result.statusCode === 416) {
        return reply
          .status(416)
          .header('content-range', result.headers['Content-Range'] ?? '')
          .send({ status: 'fail', message: 'the requested range is not satisfiable' });
      }
      // A disk failure is ours (500, logged by type); anything else means there is no such file.
      if (result.statusCode >= 500 && result.type === 'error') throw result.metadata.error;
      throw notFound('file');
    }
    const remaining = target.expiresAt - Math.floor(ctx.clock.now() / 1000);
    void reply.status(result.statusCode).headers(result.headers);
    void reply.headers({
      'cache-control': `private, max-age=${Math.max(0, Math.min(remaining, READ_URL_SECONDS))}`,
      'x-content-type-options': 'nosniff',
      // The link itself is the credential: any page holding it may read the bytes (viewers, canvases).
      'access-control-allow-origin': '*',
    });
    // No type (an unknown extension, or a 304): Fastify answers a stream as application/octet-stream.
    const type = result.headers['Content-Type'];
    if (type && ACTIVE_TYPES.test(type)) void reply.header('content-security-policy', 'sandbox');
    return reply.send(result.stream);
  });
};
