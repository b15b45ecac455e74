import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Agent, Dispatcher } from 'undici';
import { ipLiteral } from '../webhook/address-policy.js';

/*
 * The first bytes of a file at an http(s) address, for its header: asked with a Range request and
 * read up to a byte cap whatever the server does (a server that ignores ranges, says a wrong
 * length or never ends its body is cut off at the cap or the deadline). The caller's address
 * rule (`judge`) applies to every address connected to, redirects included: it is checked in the
 * connection's own DNS lookup, so a name cannot resolve one way for a check and another for the
 * connection.
 */

/** Why an address may not be reached, or undefined when it may. */
export type AddressJudge = (address: string) => string | undefined;

export interface HeadOptions {
  maxBytes: number;
  /** The file offset to read from (0 unless told): a part further on asks the server for a range it must honour. */
  start?: number;
  timeoutMs: number;
  judge: AddressJudge;
}

export interface Head {
  bytes: Buffer;
  contentType: string | undefined;
  /** The whole file was read (it is shorter than the cap). */
  whole: boolean;
  /** The file's length, when the server said it (Content-Range, or Content-Length of a whole answer). */
  total?: number | undefined;
}

/** Why the header could not be read, in words a person can act on. */
export class HeadReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HeadReadError';
  }
}

class RefusedAddress extends Error {
  constructor(reason: string) {
    super(`refused: ${reason}`);
    this.name = 'RefusedAddress';
  }
}

const MAX_REDIRECTS = 3;
const agents = new Map<AddressJudge, Promise<{ agent: Agent; request: typeof import('undici').request }>>();

function judgedLookup(judge: AddressJudge): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', undefined);
      for (const a of addresses) {
        const reason = judge(a.address);
        if (reason) return callback(new RefusedAddress(reason), '', undefined);
      }
      const first = addresses[0];
      if (options.all) return callback(null, addresses);
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      return callback(null, first.address, first.family);
    });
  };
}

function client(judge: AddressJudge) {
  let c = agents.get(judge);
  if (!c) {
    c = import('undici').then(({ Agent, request }) => ({
      agent: new Agent({ keepAliveTimeout: 5_000, connections: 16, connect: { lookup: judgedLookup(judge) } }),
      request,
    }));
    agents.set(judge, c);
  }
  return c;
}

/** Hangs up on a body not read to its end (undici then reports an abort, which nobody awaits). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function words(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `the address did not answer within ${timeoutMs / 1000} s`;
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if (e instanceof RefusedAddress) return e.message;
    const code = (e as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return "the address's host name does not resolve";
    if (code === 'ECONNREFUSED') return 'the address refused the connection';
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the server closed the connection';
  }
  return 'the address could not be read';
}

/** The file's length from the answer's headers, when they say it. */
function totalOf(headers: Dispatcher.ResponseData['headers'], status: number): number | undefined {
  const range = headers['content-range'];
  const length = headers['content-length'];
  const text = status === 206 ? (typeof range === 'string' ? /\/(\d+)$/.exec(range)?.[1] : undefined) : length;
  const n = typeof text === 'string' ? Number(text) : Number.NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Reads at most `maxBytes` of the file at `url` (from `start`). Throws HeadReadError with the reason. */
export async function readHead(url: string, opts: HeadOptions): Promise<Head> {
  const { agent, request } = await client(opts.judge);
  const start = opts.start ?? 0;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, opts.timeoutMs);
  const parse = (href: string, base?: URL) => {
    try {
      return new URL(href, base);
    } catch {
      throw new HeadReadError('the address is not a valid URL');
    }
  };
  try {
    let target = parse(url);
    for (let hop = 0; ; hop++) {
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        throw new HeadReadError(`the address is not http(s) (${target.protocol.replace(':', '')})`);
      }
      // An IP literal is connected to without a lookup, so it is judged here.
      const literal = ipLiteral(target.hostname);
      const refusal = literal === undefined ? undefined : opts.judge(literal);
      if (refusal) throw new HeadReadError(`refused: ${refusal}`);
      let res: Dispatcher.ResponseData;
      try {
        res = await request(target, {
          dispatcher: agent,
          signal: controller.signal,
          headers: { range: `bytes=${start}-${start + opts.maxBytes - 1}`, 'accept-encoding': 'identity' },
        });
      } catch (err) {
        throw new HeadReadError(words(err, timedOut, opts.timeoutMs));
      }
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        discard(res.body);
        if (hop >= MAX_REDIRECTS) throw new HeadReadError(`the address redirects more than ${MAX_REDIRECTS} times`);
        target = parse(location, target);
        continue;
      }
      if (res.statusCode === 416) {
        discard(res.body);
        throw new HeadReadError('the file is empty');
      }
      if (res.statusCode !== 200 && res.statusCode !== 206) {
        discard(res.body);
        throw new HeadReadError(`the address answered HTTP ${res.statusCode}`);
      }
      if (start > 0 && res.statusCode !== 206) {
        // Its answer would be the file from its start: a part further on is not read that way.
        discard(res.body);
        throw new HeadReadError(
          'the server does not answer range requests, and the part needed is not at the start of the file',
        );
      }
      const type = res.headers['content-type'];
      const contentType = typeof type === 'string' ? type.split(';')[0]?.trim().toLowerCase() : undefined;
      const parts: Buffer[] = [];
      let size = 0;
      let whole = true;
      try {
        for await (const chunk of res.body) {
          parts.push(chunk as Buffer);
          size += (chunk as Buffer).length;
          if (size >= opts.maxBytes) {
            whole = false;
            break;
          }
        }
      } catch (err) {
        // A body cut short (a wrong length, a dropped connection, the deadline): what came may
        // hold the header.
        if (size === 0) throw new HeadReadError(words(err, timedOut, opts.timeoutMs));
        whole = false;
      } finally {
        discard(res.body);
      }
      const total = totalOf(res.headers, res.statusCode);
      return { bytes: Buffer.concat(parts).subarray(0, opts.maxBytes), contentType, whole, total };
    }
  } finally {
    clearTimeout(timer);
  }
}
