import type { Agent } from 'undici';
import { ipLiteral, isPublicAddress, PrivateDestinationError, publicOnlyLookup } from './address-policy.js';
import type { WebhookRequest, WebhookResult, WebhookSender } from './webhook-sender.js';

export interface UndiciSenderOptions {
  /** ANNOTARY_WEBHOOK_ALLOW_PRIVATE: reach loopback, private and link-local destinations too. */
  allowPrivate: boolean;
  /** Kept-alive connections per destination origin. */
  connectionsPerOrigin?: number;
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the receiver',
  EPIPE: 'connection closed by the receiver',
  UND_ERR_SOCKET: 'connection closed by the receiver',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  EAI_AGAIN: 'DNS lookup failed, try again later',
};

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth += 1) {
    if (e instanceof PrivateDestinationError) return e.code;
    const code = (e as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function findPrivateRefusal(err: unknown): PrivateDestinationError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth += 1) {
    if (e instanceof PrivateDestinationError) return e;
  }
  return undefined;
}

/**
 * One line for the log: the status-or-error column. Built from error codes, never from library
 * messages, which may quote the URL (and so a token in its query).
 */
function describe(err: unknown, hostname: string): string {
  const refusal = findPrivateRefusal(err);
  if (refusal) return refusal.message;
  const code = errorCode(err);
  if (code === 'ENOTFOUND') return `host not found: ${hostname}`;
  if (code && NETWORK_ERRORS[code]) return NETWORK_ERRORS[code];
  if (code && /CERT|TLS|SSL/.test(code)) return `TLS error: ${code}`;
  return `network error${code ? ` (${code})` : ''}`;
}

/** The webhook sender over undici: one pool of kept-alive connections, no redirects followed. */
export function createUndiciSender(opts: UndiciSenderOptions): WebhookSender {
  // undici and the pool load with the first delivery: a server that sends none never loads them.
  let client: Promise<{ agent: Agent; request: typeof import('undici').request }> | undefined;
  const connect = () =>
    (client ??= import('undici').then(({ Agent, request }) => ({
      agent: new Agent({
        keepAliveTimeout: 10_000,
        connections: opts.connectionsPerOrigin ?? 64,
        connect: opts.allowPrivate ? {} : { lookup: publicOnlyLookup },
      }),
      request,
    })));
  return {
    async send(req: WebhookRequest): Promise<WebhookResult> {
      const url = new URL(req.url);
      const literal = ipLiteral(url.hostname);
      // An IP literal is connected to without a lookup, so it is judged here.
      if (!opts.allowPrivate && literal !== undefined && !isPublicAddress(literal)) {
        return { kind: 'failed', error: new PrivateDestinationError(literal, literal).message };
      }
      // One controller and a plain timer: AbortSignal.timeout with AbortSignal.any cost several
      // times more per request (a weak-ref registry and extra signals), and a Webhook stage
      // sends thousands per second.
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error(`timeout after ${req.timeoutMs} ms`));
      }, req.timeoutMs);
      const onAbort = () => controller.abort(req.signal?.reason);
      if (req.signal?.aborted) onAbort();
      else req.signal?.addEventListener('abort', onAbort, { once: true });
      const signal = controller.signal;
      try {
        const { agent, request } = await connect();
        const res = await request(url, {
          method: req.method,
          headers: req.headers,
          body: req.body,
          dispatcher: agent,
          signal,
          maxRedirections: 0,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        });
        const limit = req.readBodyUpTo;
        if (limit !== undefined) {
          const chunks: Buffer[] = [];
          let size = 0;
          for await (const chunk of res.body) {
            size += (chunk as Buffer).length;
            if (size > limit) {
              res.body.destroy();
              return { kind: 'failed', error: `answer larger than ${limit} bytes` };
            }
            chunks.push(chunk as Buffer);
          }
          const type = res.headers['content-type'];
          const contentType = Array.isArray(type) ? type[0] : type;
          return { kind: 'answered', status: res.statusCode, body: Buffer.concat(chunks), contentType };
        }
        // The answer's body is not used; reading it frees the connection for the next delivery.
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        return { kind: 'answered', status: res.statusCode };
      } catch (err) {
        if (timedOut) return { kind: 'failed', error: `timeout after ${req.timeoutMs} ms` };
        if (req.signal?.aborted) return { kind: 'failed', error: 'aborted: the delivery was taken over or stopped' };
        const code = errorCode(err);
        if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
          return { kind: 'failed', error: `timeout after ${req.timeoutMs} ms` };
        }
        return { kind: 'failed', error: describe(err, url.hostname) };
      } finally {
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onAbort);
      }
    },
    close: async () => {
      if (client) await (await client).agent.close();
    },
  };
}
