import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';

/**
 * A small deterministic Assist plugin on 127.0.0.1, written as a user's would be: it checks the
 * Secret header, fetches the image from the link it is sent, grows a region of similar colour
 * (each of red, green and blue within `TOLERANCE` of the seed's, four neighbours) from every
 * positive point, takes away what grows from the negative points, keeps what is inside the box,
 * and answers the mask as a PNG (white in, black out). `mode` makes it answer otherwise.
 */

export const TOLERANCE = 20;

export type AssistMode = 'mask' | 'zones' | 'error' | 'hang' | 'not-png' | 'small-mask';

export interface AssistCall {
  headers: http.IncomingHttpHeaders;
  body: {
    taskId: string;
    projectId: string;
    orgId: string;
    schemaId: string | null;
    tool: string | null;
    image: { url: string; width?: number; height?: number };
    positive: [number, number][];
    negative: [number, number][];
    box: [number, number, number, number] | null;
  };
}

export interface AssistPlugin {
  url: string;
  calls: AssistCall[];
  mode: AssistMode;
  close(): Promise<void>;
}

function grow(img: PNG, seed: [number, number], into: Uint8Array, value: number) {
  const { width: w, height: h, data } = img;
  const sx = Math.min(w - 1, Math.max(0, Math.floor(seed[0])));
  const sy = Math.min(h - 1, Math.max(0, Math.floor(seed[1])));
  const s = (sy * w + sx) * 4;
  const near = (i: number) => [0, 1, 2].every((c) => Math.abs(data[i * 4 + c]! - data[s + c]!) <= TOLERANCE);
  const seen = new Uint8Array(w * h);
  const stack = [sy * w + sx];
  seen[sy * w + sx] = 1;
  while (stack.length) {
    const i = stack.pop()!;
    into[i] = value;
    const x = i % w;
    for (const n of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i - w, i + w]) {
      if (n < 0 || n >= w * h || seen[n] || !near(n)) continue;
      seen[n] = 1;
      stack.push(n);
    }
  }
}

/** The mask of a call: 1 in, 0 out. */
export function regionMask(img: PNG, call: AssistCall['body']): Uint8Array {
  const mask = new Uint8Array(img.width * img.height);
  for (const p of call.positive) grow(img, p, mask, 1);
  for (const p of call.negative) grow(img, p, mask, 0);
  if (call.box) {
    const [x1, y1, x2, y2] = call.box;
    for (let i = 0; i < mask.length; i++) {
      const x = i % img.width;
      const y = Math.floor(i / img.width);
      if (x < x1 || x >= x2 || y < y1 || y >= y2) mask[i] = 0;
    }
  }
  return mask;
}

function maskPng(width: number, height: number, mask: Uint8Array): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < mask.length; i++) {
    const v = mask[i] ? 255 : 0;
    png.data.set([v, v, v, 255], i * 4);
  }
  return PNG.sync.write(png);
}

export async function startAssistPlugin(secret: string): Promise<AssistPlugin> {
  const state: AssistPlugin = { url: '', calls: [], mode: 'mask', close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.headers.secret !== secret) return void res.writeHead(401).end('{}');
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AssistCall['body'];
        state.calls.push({ headers: req.headers, body });
        const json = (value: unknown) =>
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
        switch (state.mode) {
          case 'hang':
            return; // never answers: the server's deadline ends the request
          case 'error':
            return void res.writeHead(500, { 'content-type': 'text/plain' }).end('model crashed');
          case 'not-png':
            return json({ mask: Buffer.from('GIF89a not a png').toString('base64') });
          case 'zones': {
            const [x, y] = body.positive[0] ?? [0, 0];
            const square = [
              [x - 10, y - 10],
              [x + 10, y - 10],
              [x + 10, y + 10],
              [x - 10, y + 10],
            ];
            return json({ zones: [{ region: square, holes: [] }] });
          }
          default: {
            const image = PNG.sync.read(Buffer.from(await (await fetch(body.image.url)).arrayBuffer()));
            const mask = regionMask(image, body);
            const [w, h] = state.mode === 'small-mask' ? [image.width - 1, image.height] : [image.width, image.height];
            const png = maskPng(w, h, state.mode === 'small-mask' ? new Uint8Array(w * h) : mask);
            return json({ mask: png.toString('base64') });
          }
        }
      })().catch(() => res.writeHead(500).end('{}'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/assist`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
