/**
 * GET /v2/storages/{id}/files over big buckets: a real Annotary server process lists 10,000 and
 * 100,000 objects of a CUSTOM_S3, GCP and AZURE storage, as keys and as signed URLs, through the
 * official SDKs. The buckets are answered by small in-process servers of this file that speak
 * each provider's listing API (S3 ListObjectsV2 XML pages of 1,000; GCS JSON pages of 1,000;
 * Azure List Blobs XML pages of 5,000) and generate their keys, so the figures are Annotary's:
 * SDK calls, signing, spooling and streaming the answer.
 *
 * Memory is the server's peak RSS (VmHWM), read after each listing; scenarios run smallest
 * first, so a peak that does not grow from 10,000 to 100,000 objects shows memory bounded by a
 * provider page rather than by the bucket.
 *
 *   npm run bench -- storage-list [--engine sqlite|postgres] [--objects 100000] [--providers s3,gcs,azure] [--heap-mb 64]
 *   npx tsx bench/storage-list.ts            (alone, same defaults, SQLite)
 */
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { type AnnotaryServer, startAnnotary } from './lib/annotary.js';
import { mib, num } from './lib/format.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

type Provider = 's3' | 'gcs' | 'azure';

const keyOf = (i: number) =>
  `images/batch-${String(Math.floor(i / 1000)).padStart(4, '0')}/frame-${String(i).padStart(7, '0')}.jpg`;
const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Serves every provider's listing of buckets named `objects-<n>`, generating the keys. */
async function startListingServer(): Promise<{ url: string; pages: () => number; close(): Promise<void> }> {
  let pages = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const sizeOf = (bucket: string | undefined) => Number(/^objects-(\d+)$/.exec(bucket ?? '')?.[1] ?? 0);
    pages++;
    // GCS JSON API: /storage/v1/b/<bucket>/o
    const gcs = /^\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
    if (gcs) {
      const total = sizeOf(gcs[1]);
      const start = Number(url.searchParams.get('pageToken') ?? 0);
      const end = Math.min(total, start + Number(url.searchParams.get('maxResults') ?? 1000));
      const items = [];
      for (let i = start; i < end; i++) items.push({ name: keyOf(i) });
      res.setHeader('content-type', 'application/json');
      return res.end(
        JSON.stringify({ kind: 'storage#objects', items, ...(end < total ? { nextPageToken: String(end) } : {}) }),
      );
    }
    // Azure: /<account>/<container>?restype=container&comp=list
    if (url.searchParams.get('comp') === 'list') {
      const container = url.pathname.split('/')[2];
      const total = sizeOf(container);
      const start = Number(url.searchParams.get('marker') || 0);
      const end = Math.min(total, start + Number(url.searchParams.get('maxresults') ?? 5000));
      let body = `<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="http://x/" ContainerName="${container}"><Blobs>`;
      for (let i = start; i < end; i++) {
        body += `<Blob><Name>${xml(keyOf(i))}</Name><Properties><Last-Modified>Thu, 01 Jan 2026 00:00:00 GMT</Last-Modified><Etag>0x1</Etag><Content-Length>1234</Content-Length><BlobType>BlockBlob</BlobType></Properties></Blob>`;
      }
      body += `</Blobs><NextMarker>${end < total ? end : ''}</NextMarker></EnumerationResults>`;
      res.setHeader('content-type', 'application/xml');
      res.setHeader('x-ms-version', '2025-11-05');
      return res.end(body);
    }
    // S3 ListObjectsV2 (path-style): /<bucket>?list-type=2
    const bucket = url.pathname.split('/')[1];
    const total = sizeOf(bucket);
    const start = Number(url.searchParams.get('continuation-token') ?? 0);
    const end = Math.min(total, start + Number(url.searchParams.get('max-keys') ?? 1000));
    let body = `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><KeyCount>${end - start}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>${end < total}</IsTruncated>`;
    if (end < total) body += `<NextContinuationToken>${end}</NextContinuationToken>`;
    for (let i = start; i < end; i++) {
      body += `<Contents><Key>${xml(keyOf(i))}</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>"0"</ETag><Size>1234</Size><StorageClass>STANDARD</StorageClass></Contents>`;
    }
    res.setHeader('content-type', 'application/xml');
    res.end(`${body}</ListBucketResult>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pages: () => pages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function createStorages(server: AnnotaryServer, listing: string): Promise<Record<Provider, string>> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const bodies: Record<Provider, Record<string, unknown>> = {
    s3: { name: 'bench-s3', provider: 'CUSTOM_S3', host: listing, publicKey: 'bench', privateKey: 'bench-secret' },
    gcs: {
      name: 'bench-gcs',
      provider: 'GCP',
      host: listing,
      credentials: {
        type: 'service_account',
        client_email: 'bench@bench.iam.gserviceaccount.com',
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      },
    },
    azure: {
      name: 'bench-azure',
      provider: 'AZURE',
      publicKey: 'benchaccount',
      privateKey: Buffer.from('bench-account-key').toString('base64'),
      host: `${listing}/benchaccount`,
    },
  };
  const ids = {} as Record<Provider, string>;
  for (const [provider, body] of Object.entries(bodies) as [Provider, Record<string, unknown>][]) {
    const res = await server.api<{ data: { storage: { _id: string } } }>('POST', '/storages', body);
    ids[provider] = res.data.storage._id;
  }
  return ids;
}

interface Measured {
  seconds: number;
  firstByteSeconds: number;
  bytes: number;
  total: number;
}

/** Streams the answer without keeping it: counts bytes, reads `total`, checks the closing. */
async function list(server: AnnotaryServer, id: string, objects: number, signed: boolean): Promise<Measured> {
  const started = performance.now();
  const res = await fetch(
    `${server.url}/v2/storages/${id}/files?bucketName=objects-${objects}&getSignedUrls=${signed}`,
    { headers: { apikey: server.apiKey } },
  );
  const firstByteSeconds = (performance.now() - started) / 1000;
  if (!res.ok || !res.body) throw new Error(`listing answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  let bytes = 0;
  let head = '';
  let tail = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    bytes += chunk.length;
    const text = decoder.decode(chunk, { stream: true });
    if (head.length < 200) head += text.slice(0, 200);
    tail = (tail + text).slice(-8);
  }
  const total = Number(/"total":(\d+)/.exec(head)?.[1]);
  if (total !== objects || !tail.endsWith(']}}')) throw new Error(`expected ${objects} files, got ${total} (${tail})`);
  return { seconds: (performance.now() - started) / 1000, firstByteSeconds, bytes, total };
}

async function run(opts: BenchOptions): Promise<Result> {
  const objects = Number(opts.extra.objects ?? 100_000);
  const providers = (opts.extra.providers ?? 's3,gcs,azure').split(',').map((p) => p.trim()) as Provider[];
  const sizes = [...new Set([Math.min(10_000, objects), objects])];
  const listing = await startListingServer();
  // --heap-mb caps the server's V8 heap: a 100,000-object listing that completes under a small
  // cap shows memory bounded by a page, which peak RSS alone (V8 grows lazily) cannot.
  const heapMb = opts.extra['heap-mb'] ? Number(opts.extra['heap-mb']) : undefined;
  const server = await startAnnotary({
    engine: opts.engine,
    // The listing server is on 127.0.0.1.
    env: { ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true' },
    ...(heapMb ? { nodeFlags: [`--max-old-space-size=${heapMb}`] } : {}),
  });
  const rows: (string | number)[][] = [];
  const data: (Measured & { provider: Provider; objects: number; signed: boolean; peakRssBytes: number })[] = [];
  try {
    const ids = await createStorages(server, listing.url);
    const baseline = server.process.peakRssBytes();
    for (const signed of [false, true]) {
      for (const provider of providers) {
        for (const size of sizes) {
          process.stderr.write(`storage-list: ${provider} ${size} ${signed ? 'signed URLs' : 'keys'}...\n`);
          const m = await list(server, ids[provider], size, signed).catch((err: unknown) => {
            const why = err instanceof Error ? err.message : String(err);
            throw new Error(`${provider} ${size}: ${why}\nserver output:\n${server.process.output().slice(-2000)}`);
          });
          const peak = server.process.peakRssBytes();
          rows.push([
            provider,
            size,
            signed ? 'signed URLs' : 'keys',
            `${num(m.seconds, 2)} s`,
            Math.round(size / m.seconds),
            `${num(m.firstByteSeconds, 2)} s`,
            mib(m.bytes),
            mib(peak),
          ]);
          data.push({ provider, objects: size, signed, ...m, peakRssBytes: peak });
        }
      }
    }
    const top = data.filter((d) => d.objects === objects && d.signed);
    const peak = Math.max(...data.map((d) => d.peakRssBytes));
    return {
      table: {
        columns: ['provider', 'objects', 'answer', 'time', 'objects/s', 'first byte', 'answer size', 'server peak RSS'],
        rows,
      },
      summary:
        `${num(objects)} signed URLs: ` +
        top.map((d) => `${d.provider} ${num(d.seconds, 1)} s`).join(', ') +
        `; server peak RSS ${mib(peak)} (${mib(baseline)} after start-up)` +
        (heapMb ? `, V8 heap capped at ${heapMb} MiB` : ''),
      data: { objects, heapMb, baselinePeakRssBytes: baseline, runs: data, providerPages: listing.pages() },
      notes: [
        'Listings are answered once every provider page is in (a failure on any page is still a clean 4xx);',
        'meanwhile items wait in a temporary file past 1 MiB, so "first byte" is close to "time".',
        'GCS V4 URLs are RSA-SHA256 signatures (one per object); S3 and Azure SAS are HMACs.',
      ],
    };
  } finally {
    await server.stop();
    await listing.close();
  }
}

const benchmark = defineBenchmark({
  name: 'storage-list',
  description:
    'GET /storages/{id}/files of 10,000 and 100,000 objects (S3, GCS, Azure listing APIs), keys and signed URLs: time, size, server peak RSS',
  run,
});
export default benchmark;

// `npx tsx bench/storage-list.ts [--objects n] [--providers s3,gcs] [--engine postgres]` runs it alone.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const extra: Record<string, string> = {};
  for (const name of ['objects', 'providers', 'heap-mb']) {
    const v = arg(name);
    if (v) extra[name] = v;
  }
  run({
    engine: arg('engine') === 'postgres' ? 'postgres' : 'sqlite',
    durationSec: 0,
    warmupSec: 0,
    profile: false,
    extra,
  })
    .then((r) => {
      process.stdout.write(
        `${r.table.columns.join(' | ')}\n${r.table.rows.map((row) => row.join(' | ')).join('\n')}\n\n${r.summary}\n`,
      );
    })
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    });
}
