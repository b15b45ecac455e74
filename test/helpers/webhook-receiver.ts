import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP receiver on 127.0.0.1 (port 0), written the way a user's would be: it reads the
 * raw bytes, checks the signature with its own HMAC code over those bytes (not over re-
 * serialised JSON), and answers what the test tells it to. It records every request, with the
 * time it was open, so tests can say which delivery came how often and whether two sends of one
 * delivery ever overlapped.
 */

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  /** The parsed body; undefined when it is not JSON. */
  body: Record<string, unknown> | undefined;
  deliveryId: string;
  attempt: number;
  /** The X-Hub-Signature matched our own HMAC-SHA1 of the raw bytes (secret receivers only). */
  signatureValid: boolean | undefined;
  /** performance.now() when the request arrived and when its answer ended (or it was cut). */
  openedAt: number;
  closedAt: number | undefined;
  /** What the receiver answered; undefined while open, or when the connection was cut first. */
  answered: number | undefined;
}

export interface Answer {
  status: number;
  /** Wait this long before answering (ms). */
  delayMs?: number;
  headers?: Record<string, string>;
}

export type Responder = (req: Received, received: Received[]) => Answer;

export interface Receiver {
  url: string;
  received: Received[];
  /** Requests open right now. */
  open(): number;
  /** What to answer from now on. */
  respond(responder: Responder): void;
  /** Requests of one delivery id, in arrival order. */
  byDelivery(): Map<string, Received[]>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  secret?: string;
  respond?: Responder;
}

export function signatureMatches(secret: string, raw: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const ours = Buffer.from(createHmac('sha1', secret).update(raw).digest('hex'), 'utf8');
  const theirs = Buffer.from(header, 'utf8');
  return ours.length === theirs.length && timingSafeEqual(ours, theirs);
}

export async function startReceiver(opts: ReceiverOptions = {}): Promise<Receiver> {
  let responder: Responder = opts.respond ?? (() => ({ status: 200 }));
  const received: Received[] = [];
  let open = 0;
  const server = http.createServer((req, res) => {
    const openedAt = performance.now();
    const chunks: Buffer[] = [];
    open += 1;
    let closed = false;
    const entry: Received = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      raw: Buffer.alloc(0),
      body: undefined,
      deliveryId: String(req.headers['x-annotary-delivery'] ?? ''),
      attempt: Number(req.headers['x-annotary-attempt'] ?? 0),
      signatureValid: undefined,
      openedAt,
      closedAt: undefined,
      answered: undefined,
    };
    const close = () => {
      if (closed) return;
      closed = true;
      open -= 1;
      entry.closedAt = performance.now();
    };
    res.on('close', close);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      entry.raw = Buffer.concat(chunks);
      try {
        entry.body = JSON.parse(entry.raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        entry.body = undefined;
      }
      if (opts.secret !== undefined) {
        const header = req.headers['x-hub-signature'];
        entry.signatureValid = signatureMatches(
          opts.secret,
          entry.raw,
          typeof header === 'string' ? header : undefined,
        );
      }
      received.push(entry);
      const answer = entry.signatureValid === false ? { status: 401 } : responder(entry, received);
      const reply = () => {
        if (closed) return;
        entry.answered = answer.status;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end('ok');
      };
      if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    open: () => open,
    respond: (r) => {
      responder = r;
    },
    byDelivery() {
      const map = new Map<string, Received[]>();
      for (const r of received) map.set(r.deliveryId, [...(map.get(r.deliveryId) ?? []), r]);
      return map;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
