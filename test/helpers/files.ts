import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { App } from '../../src/http/app.js';

/** The public URL the test apps hand out (see makeTestApp). */
export const PUBLIC_URL = 'http://annotary.test';

/** Starts the app on a free local port; answers a function that points our URLs at it. */
export async function listen(app: App): Promise<(url: string) => string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const base = `http://127.0.0.1:${address.port}`;
  return (url) => (url.startsWith(PUBLIC_URL) ? base + url.slice(PUBLIC_URL.length) : url);
}

/** Every file under `dir` (relative paths), the temporary folder included. */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Sends request headers and `body` bytes on a raw socket, then either waits for the answer
 * or (abort) destroys the socket mid-body, as a client that gives up would.
 */
export function rawPut(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  abort = false,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string } | undefined> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', headers });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', (err) => (abort ? resolve(undefined) : reject(err)));
    if (abort) {
      req.write(body, () => setTimeout(() => req.destroy(), 50));
      req.on('close', () => resolve(undefined));
      return;
    }
    if (body.length) req.write(body);
    else req.flushHeaders();
    if (headers['content-length'] === undefined || Number(headers['content-length']) === body.length) req.end();
  });
}

/** Polls `check` until it holds (or fails after `ms`): for effects that follow a closed socket. */
export async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
