import http from 'node:http';

export interface RangeServer {
  url: string;
  /** The browser's requests, in order. */
  log: Logged[];
  /** Bytes sent to the browser for a path (`/whole/...` counted apart). */
  sent(path: string): number;
  close(): Promise<void>;
}

export interface Logged {
  path: string;
  range: string | undefined;
  status: number;
  bytes: number;
}

/**
 * Serves files with single byte ranges (206), or without (`/whole/...`: 200 and the whole body);
 * logs each GET the browser makes (a cross-origin fetch, with an Origin header: the server's own
 * header job reads the same files and is not counted).
 */
export async function rangeServer(files: Record<string, Buffer>): Promise<RangeServer> {
  const log: Logged[] = [];
  const server = http.createServer((req, res) => {
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'range',
      'access-control-expose-headers': 'content-range, content-length',
    };
    if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
    const url = (req.url ?? '').split('?')[0] ?? '';
    const whole = url.startsWith('/whole/');
    const body = files[url.replace(/^\/whole/, '')];
    if (!body) return res.writeHead(404, cors).end();
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const push = (l: Logged) => req.headers.origin && log.push(l);
    if (whole || !m) {
      push({ path: url, range: req.headers.range, status: 200, bytes: body.length });
      return res.writeHead(200, { ...cors, 'content-type': 'video/mp4' }).end(body);
    }
    const from = Number(m[1]);
    const to = Math.min(body.length - 1, m[2] ? Number(m[2]) : body.length - 1);
    if (from >= body.length) {
      return res.writeHead(416, { ...cors, 'content-range': `bytes */${body.length}` }).end();
    }
    push({ path: url, range: req.headers.range, status: 206, bytes: to - from + 1 });
    res.writeHead(206, {
      ...cors,
      'content-type': 'video/mp4',
      'content-range': `bytes ${from}-${to}/${body.length}`,
      'accept-ranges': 'bytes',
    });
    res.end(body.subarray(from, to + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    sent: (path: string) => log.filter((l) => l.path === path).reduce((n, l) => n + l.bytes, 0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
