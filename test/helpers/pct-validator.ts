import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An external validator of pct answers as a customer would write one, on 127.0.0.1: it refuses a
 * wrong Secret header (401) and judges every cuboid it is sent: one taller than 3 m, or wider
 * than 2.5 m, is wrong. `mode` makes it fail, answer nonsense or never answer.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface PctValidator {
  url: string;
  calls: { headers: http.IncomingHttpHeaders; body: Json }[];
  mode: 'judge' | 'error' | 'not-json' | 'hang' | 'no-verdict';
  close(): Promise<void>;
}

export async function startPctValidator(secret: string): Promise<PctValidator> {
  const v: PctValidator = { url: '', calls: [], mode: 'judge', close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      v.calls.push({ headers: req.headers, body });
      if (v.mode === 'hang') return;
      if (v.mode === 'error' || req.headers.secret !== secret) {
        res.writeHead(v.mode === 'error' ? 500 : 401).end('no');
        return;
      }
      if (v.mode === 'not-json') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('fine');
      if (v.mode === 'no-verdict') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      const errors: Json[] = [];
      for (const e of body.answer.tools as Json[]) {
        if (e.markingTool !== 'cuboid') continue;
        const d = e.cuboid.dimensions;
        if (d.height > 3) errors.push({ frame: e.page, objectId: e.objectId, message: `too tall: ${d.height} m` });
        if (d.width > 2.5) errors.push({ frame: e.page, objectId: e.objectId, message: `too wide: ${d.width} m` });
      }
      const verdict = { valid: errors.length === 0, errors, message: `checked ${body.frames.length} frames` };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(verdict));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  v.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/validate`;
  v.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return v;
}
