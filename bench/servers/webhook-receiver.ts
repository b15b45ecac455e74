/**
 * The receiving end of the webhook benchmark: a plain node:http server that reads each request
 * whole, checks X-Hub-Signature over the raw bytes when there is one (as a real receiver would),
 * and answers 200 at once. GET /stats answers the counts and the time of the first and last
 * request (performance.timeOrigin-based epoch ms). Run by bench/webhook-throughput.ts:
 *
 *   PORT=3001 BENCH_SECRET=s node --import tsx bench/servers/webhook-receiver.ts
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';

const port = Number(process.env.PORT ?? 3001);
const secret = process.env.BENCH_SECRET ?? '';
/**
 * Where to keep the first signed request received: its body, and its headers beside it in
 * `<file>.headers.json`. The raw poster sends the same bytes with the same headers, so this
 * receiver checks a signature on every request of either sender.
 */
const sampleFile = process.env.BENCH_SAMPLE_FILE;
/** Headers a sender sets itself; the others are kept for the raw poster. */
const SENDER_OWN = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

const stats = { requests: 0, signed: 0, badSignatures: 0, firstAt: 0, lastAt: 0 };
const now = () => performance.timeOrigin + performance.now();

function signatureOk(raw: Buffer, header: string): boolean {
  const ours = Buffer.from(createHmac('sha1', secret).update(raw).digest('hex'));
  const theirs = Buffer.from(header);
  return ours.length === theirs.length && timingSafeEqual(ours, theirs);
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    if (req.url === '/stats') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
    else if (req.url === '/reset') {
      Object.assign(stats, { requests: 0, signed: 0, badSignatures: 0, firstAt: 0, lastAt: 0 });
      res.writeHead(200).end('{}');
    } else res.writeHead(200).end('ok');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = now();
    stats.requests += 1;
    stats.firstAt ||= at;
    stats.lastAt = at;
    const signature = req.headers['x-hub-signature'];
    if (typeof signature === 'string') {
      stats.signed += 1;
      const raw = Buffer.concat(chunks);
      if (!signatureOk(raw, signature)) stats.badSignatures += 1;
      if (sampleFile && stats.signed === 1) {
        const headers = Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && !SENDER_OWN.has(k));
        fs.writeFileSync(`${sampleFile}.headers.json`, JSON.stringify(Object.fromEntries(headers)));
        fs.writeFileSync(sampleFile, raw);
      }
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.keepAliveTimeout = 60_000;

process.on('SIGTERM', () => server.close(() => process.exit(0)));
server.listen(port, '127.0.0.1');
